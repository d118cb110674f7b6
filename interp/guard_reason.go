package interp

import (
	"errors"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/guardrun/guardrun/ast"
	"github.com/guardrun/guardrun/taint"
)

// redacted stands, in a rendered reason, for a value whose labels are
// confidential.
const redacted = "[REDACTED]"

// maxReason bounds a rendered reason or question in bytes: it may quote
// a value as long as a tool's output, and it is shown to the agent and
// written to the decision log on every denial. Longer text is cut at a
// character boundary and ends with "…".
const maxReason = 2048

// reasonText renders a deny reason or ask question written as a
// template (ast.DenyExpr.Template) in the guard's scope ge. An
// interpolated value that carries a confidential label (secret,
// sensitive, pii, or a label the policy has a labels rule for:
// policy.Set.Confidential) is written as [REDACTED], whatever its
// other labels: a reason carries no labels of its own, and it goes to
// the agent, its user and the decision log. what ("deny reason", "ask
// question") names the template in an error; the guard then fails, and
// a failed guard denies.
func (in *interp) reasonText(ge *env, what string, s *ast.StringLit) (string, error) {
	if err := reasonNames(ge, s.Parts); err != nil {
		return "", reasonError(what, s.Pos, err)
	}
	var b, part strings.Builder
	one := make([]ast.TemplatePart, 1)
	for _, p := range s.Parts {
		// Each part is rendered on its own, so its labels are its own:
		// only the confidential values are masked, not the sentence.
		part.Reset()
		var descs taint.Collector
		one[0] = p
		if err := in.renderParts(ge, s.Kind, one, &part, &descs); err != nil {
			return "", reasonError(what, s.Pos, err)
		}
		if in.confidentialDesc(descs.Descriptor()) {
			b.WriteString(redacted)
		} else {
			b.WriteString(part.String())
		}
		if b.Len() > maxReason {
			break
		}
	}
	return clipReason(b.String()), nil
}

// reasonNames fails on a reference to a variable that does not exist:
// a template elsewhere shows it as written (as mlld does), but inside a
// guard a misspelt name is an error, as it is in a condition (the check
// command reports it). Text such as ann@example.com, `@x?` and `@x ??
// "default"` are not references that must exist.
func reasonNames(ge *env, parts []ast.TemplatePart) error {
	for _, part := range parts {
		var x ast.Expr
		switch p := part.(type) {
		case *ast.InterpPart:
			if p.AfterWord || p.OmitFalsy || p.Fallback != nil {
				continue
			}
			x = p.Value
		case *ast.TemplateFor:
			x = p.Source
		}
		if r := rootRef(x); r != nil && !ge.resolvable(r.Name) {
			return newError(KindVariable, r.Pos, "define it with var before the guard; for an @ in the text write @@",
				"Variable not found: %s", r.Name)
		}
	}
	return nil
}

// confidentialDesc reports whether d carries a label whose data errors,
// reasons and notes must not quote (policy.Set.Confidential).
func (in *interp) confidentialDesc(d taint.Descriptor) bool {
	return confidential(d.Labels(), &in.policy) || confidential(d.Taint(), &in.policy)
}

// clipReason cuts s to maxReason bytes at a character boundary.
func clipReason(s string) string {
	if len(s) <= maxReason {
		return s
	}
	end := maxReason - len("…")
	for end > 0 && !utf8.RuneStart(s[end]) {
		end--
	}
	return s[:end] + "…"
}

// reasonError says that a reason's template failed, where the failure
// happened (its own position, else the template's).
func reasonError(what string, at ast.Pos, err error) error {
	var e *Error
	if errors.As(err, &e) {
		c := *e
		if c.Pos.Line == 0 {
			c.Pos = at
		}
		c.Message = "the " + what + " could not be rendered: " + c.Message
		c.Err = err
		return &c
	}
	return &Error{Kind: KindUnexpected, Pos: at, Message: "the " + what + " could not be rendered: " + err.Error(), Err: err}
}

// reasonSource is a reason as its author wrote it: a template as
// written, literal text quoted.
func reasonSource(text string, tmpl *ast.StringLit) string {
	if tmpl != nil {
		return tmpl.Raw
	}
	return strconv.Quote(text)
}
