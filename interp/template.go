package interp

import (
	"strings"

	"github.com/guardrun/guardrun/ast"
	"github.com/guardrun/guardrun/interp/value"
	"github.com/guardrun/guardrun/taint"
)

// evalString evaluates a quoted string or template. The result's
// descriptor is the union of the interpolated values'.
func (in *interp) evalString(e *env, s *ast.StringLit) (*value.Variable, error) {
	return in.evalStringMemo(e, s, nil)
}

// evalStringMemo is evalString with the descriptor merge answered from m
// (when not nil) if the interpolated descriptors are those of m's last
// use: an exe's template body gets the same argument labels call after
// call.
func (in *interp) evalStringMemo(e *env, s *ast.StringLit, m *taint.Memo) (*value.Variable, error) {
	if len(s.Parts) == 1 {
		if t, ok := s.Parts[0].(*ast.TextPart); ok {
			// Text alone: the literal's own string, not a copy built for
			// it (a guard's "op:cmd:curl" is evaluated on every call).
			if err := in.stringFits(t.Pos, "the template", 0, len(t.Text)); err != nil {
				return nil, err
			}
			return value.New(t.Text), nil
		}
	}
	var b strings.Builder
	// One allocation for the usual template instead of a doubling series:
	// the literal text plus a guess for each interpolation.
	b.Grow(sizeHint(s.Parts))
	var descs taint.Collector
	if err := in.renderParts(e, s.Kind, s.Parts, &b, &descs); err != nil {
		return nil, err
	}
	res := value.New(b.String())
	if m != nil {
		res.Security = descs.DescriptorMemo(m)
	} else {
		res.Security = descs.Descriptor()
	}
	return res, nil
}

// interpGuess is the room sizeHint reserves per interpolated value: short
// values (names, ids, small numbers) fit, and a longer one costs one
// extra growth, as before.
const interpGuess = 16

// sizeHint estimates the rendered length of template parts.
func sizeHint(parts []ast.TemplatePart) int {
	n := 0
	for _, part := range parts {
		switch p := part.(type) {
		case *ast.TextPart:
			n += len(p.Text)
		case *ast.InterpPart:
			n += interpGuess
		}
	}
	return n
}

// renderParts writes template parts to b and collects the descriptors of
// everything interpolated into descs. The result may not pass the run's
// string cap, and a long rendering stops at the run's deadline.
func (in *interp) renderParts(e *env, kind ast.QuoteKind, parts []ast.TemplatePart, b *strings.Builder, descs *taint.Collector) error {
	for _, part := range parts {
		switch p := part.(type) {
		case *ast.TextPart:
			if err := in.stringFits(p.Pos, "the template", b.Len(), len(p.Text)); err != nil {
				return err
			}
			b.WriteString(p.Text)
		case *ast.InterpPart:
			if kind == ast.SingleQuote {
				continue
			}
			v, literal, err := in.interpolate(e, p)
			if err != nil {
				return err
			}
			if literal != "" {
				if kind == ast.TripleColon {
					// An undefined {{name}} stays as written.
					literal = "{{" + strings.TrimPrefix(literal, "@") + "}}"
				}
				if err := in.stringFits(p.Pos, "the template", b.Len(), len(literal)); err != nil {
					return err
				}
				b.WriteString(literal)
				continue
			}
			descs.Add(v.Security)
			if e.interpolated != nil {
				*e.interpolated = append(*e.interpolated, v)
			}
			text := interpText(v)
			if _, ok := v.Data.(value.Undefined); ok && readsMember(p.Value) {
				// As in mlld, a missing field or element shows as null
				// in a template (`@o.missing`, `@a[5]`).
				text = "null"
			}
			if err := in.stringFits(p.Pos, "the template", b.Len(), len(text)); err != nil {
				return err
			}
			if b.Len() >= ctxCheckLen {
				// Large renderings: copying is what takes time now.
				if err := in.checkCtx(p.Pos); err != nil {
					return err
				}
			}
			b.WriteString(text)
		case *ast.TemplateFor:
			if err := in.renderFor(e, kind, p, b, descs); err != nil {
				return err
			}
		}
	}
	return nil
}

// ctxCheckLen is the rendered length past which each interpolation first
// checks the run's deadline; short templates skip the check.
const ctxCheckLen = 1 << 20

// renderFor renders an inline `/for @x in @src … /end` block once per
// element; every element carries the source's descriptor, as in `for`.
// As in mlld (interpolation.ts), a source that is undefined or not an
// array or object renders nothing, and the element's key is also bound
// as @x_key when the head names no key variable.
func (in *interp) renderFor(e *env, kind ast.QuoteKind, p *ast.TemplateFor, b *strings.Builder, descs *taint.Collector) error {
	if r := rootRef(p.Source); r != nil && !e.resolvable(r.Name) {
		return nil
	}
	src, err := in.evalExpr(e, p.Source)
	if err != nil {
		return atPos(err, KindUnexpected, p.Pos)
	}
	if _, text := src.Data.(string); text {
		return nil
	}
	items, _, err := iterate(src, p.Pos)
	if err != nil {
		return nil
	}
	descs.Add(src.Security)
	for _, it := range items {
		if err := in.checkCtx(p.Pos); err != nil {
			return err
		}
		fe := e.child()
		fe.sc.vars[p.Var] = derived(it.val, src)
		if p.Key != "" {
			fe.sc.vars[p.Key] = derived(it.keyValue(), src)
		} else {
			fe.sc.vars[p.Var+"_key"] = derived(it.keyValue(), src)
		}
		if err := in.renderParts(fe, kind, p.Body, b, descs); err != nil {
			return err
		}
	}
	return nil
}

// interpolate evaluates one interpolation. A reference to an unknown
// variable is not an error: literal holds the reference as written.
func (in *interp) interpolate(e *env, p *ast.InterpPart) (v *value.Variable, literal string, err error) {
	if r, ok := p.Value.(*ast.Ref); ok && r.Name == "mx" {
		// Always defined; evalRef reads one member of it.
		if v, err = in.evalRef(e, r); err != nil {
			return nil, "", err
		}
		return in.interpolated(e, p, v)
	}
	if r, ok := p.Value.(*ast.Ref); ok && !indexesPipeline(e, r) {
		// The common `@name…` interpolation: look the root up once, for
		// the check below and the evaluation.
		if root, found := e.lookup(r.Name); found && !isMissingArg(root) {
			v, err = in.evalRefRoot(e, r, root, true)
			if err != nil {
				return nil, "", err
			}
			return in.interpolated(e, p, v)
		}
	}
	if r := rootRef(p.Value); r != nil && e.unboundName(r.Name) {
		if p.Fallback != nil {
			fb, err := in.evalExpr(e, p.Fallback)
			return fb, "", err
		}
		if p.OmitFalsy {
			return value.New(""), "", nil
		}
		if ref, ok := p.Value.(*ast.Ref); ok && p.AfterWord {
			// `user@example.com`: text that happens to hold an @.
			return nil, refText(ref), nil
		}
		// As in mlld, an undefined reference stays as written with its
		// `.field` accesses; its indexes and pipes are dropped (`@a[5]`
		// and `@a|@upper` show `@a`).
		return nil, undefinedText(r), nil
	}
	v, err = in.evalExpr(e, p.Value)
	if err != nil {
		return nil, "", err
	}
	return in.interpolated(e, p, v)
}

// interpolated applies an interpolation's fallback and falsy omission to
// its value v.
func (in *interp) interpolated(e *env, p *ast.InterpPart, v *value.Variable) (*value.Variable, string, error) {
	if p.Snippet != nil {
		return in.snippet(e, p, v)
	}
	if p.Fallback != nil && isNullish(v) {
		fb, err := in.evalExpr(e, p.Fallback)
		return fb, "", err
	}
	if p.OmitFalsy && !value.Truthy(v.Data) {
		return derived("", v), "", nil
	}
	if isSkip(v) || isRetry(v) {
		return undefined(), "", nil
	}
	return v, "", nil
}

// interpolatePart is interpolate for command templates: literal reports
// that the text is the reference as written (left for the shell).
func (in *interp) interpolatePart(e *env, p *ast.InterpPart) (text string, literal bool, v *value.Variable, err error) {
	v, lit, err := in.interpolate(e, p)
	if err != nil {
		return "", false, nil, err
	}
	if lit != "" {
		if r, ok := p.Value.(*ast.Ref); ok {
			// In a command an undefined reference is left as written,
			// accessors included, for the shell.
			lit = refText(r)
		}
		return lit, true, nil, nil
	}
	return rawText(v), false, v, nil
}

// rootRef is the reference an interpolation starts from, if any.
func rootRef(x ast.Expr) *ast.Ref {
	switch x := x.(type) {
	case *ast.Ref:
		return x
	case *ast.PipelineExpr:
		return rootRef(x.Source)
	}
	return nil
}

// deferTemplate marks v, the value of `var @name = :::…:::` (x), to be
// rendered again where it is read when one of the {{names}} it uses is not
// defined yet: mlld keeps a ::: template unrendered until it is used, so
// an importer can define what a module's template interpolates.
func deferTemplate(e *env, x ast.Expr, v *value.Variable) {
	lit, ok := x.(*ast.StringLit)
	if !ok || lit.Kind != ast.TripleColon {
		return
	}
	for _, part := range lit.Parts {
		if p, ok := part.(*ast.InterpPart); ok {
			if r := rootRef(p.Value); r != nil && !e.resolvable(r.Name) {
				v.Deferred = lit
				return
			}
		}
	}
}

// renderDeferred renders a deferred template variable (deferTemplate) in
// e, the environment that reads it.
func (in *interp) renderDeferred(e *env, v *value.Variable) (*value.Variable, error) {
	lit := v.Deferred.(*ast.StringLit)
	r, err := in.evalString(e, lit)
	if err != nil {
		return nil, err
	}
	c := *v
	c.Data, c.Deferred = r.Data, nil
	c.Security = c.Security.Merge(r.Security)
	return &c, nil
}

// undefinedText is how a template shows a reference to an undefined
// variable: `@name` and its field accesses.
func undefinedText(r *ast.Ref) string {
	var b strings.Builder
	b.WriteString("@" + r.Name)
	for _, a := range r.Path {
		if a.Kind == ast.AccessField && a.Name != "" && (a.Name[0] < '0' || a.Name[0] > '9') {
			b.WriteString("." + a.Name)
		}
	}
	return b.String()
}

// readsMember reports whether x reads a field or an element of a
// variable (`@o.key`, `@a[5]`), not calling anything. The pipeline
// context (`@p[-4]`) and @mx are not variables: a missing member is empty.
func readsMember(x ast.Expr) bool {
	r, ok := x.(*ast.Ref)
	if !ok || len(r.Path) == 0 || r.Name == "mx" || r.Name == "p" || r.Name == "pipeline" {
		return false
	}
	for _, a := range r.Path {
		if a.Kind != ast.AccessField && a.Kind != ast.AccessIndex {
			return false
		}
	}
	return true
}
