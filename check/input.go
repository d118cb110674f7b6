package check

import (
	"strings"

	"github.com/guardrun/guardrun/ast"
	"github.com/guardrun/guardrun/lang"
)

// inputListFields are the fields of a per-operation guard's @input, the
// list of the operation's inputs (lang.InputListFields).
var inputListFields = &lazySet{names: lang.InputListFields}

// inputSynonyms are the names other languages give @input's fields.
var inputSynonyms = map[string]string{"some": "any", "every": "all", "each": "all", "count": "length", "size": "length", "len": "length"}

// KindQuantifier is a quantifier of @input that lets through what its
// arm means to stop: `.all` in an arm that denies or asks.
const KindQuantifier = "quantifier"

// perOperation reports whether g's @input is the list of its operation's
// inputs: a guard on an operation (`op:…`) or on an exe (`@name`). A
// guard on a data label sees one value, whose fields are its own.
func perOperation(g *ast.GuardDirective) bool {
	return strings.HasPrefix(g.Trigger, "op:") || strings.HasPrefix(g.Trigger, "@")
}

// inputFields reports, in per-operation guards, fields of @input that
// the list does not have (`@input.some`, `@input.bogus`: null at run
// time, so the condition is silently false and the guard fails open),
// and `@input.all` in an arm that denies or asks: it matches only when
// every input does, so one matching input among others passes.
func (c *checker) inputFields(g *ast.GuardDirective) {
	if !perOperation(g) || g.Body == nil {
		return
	}
	for _, arm := range g.Body.Arms {
		stops := false
		switch arm.Action.(type) {
		case *ast.DenyExpr, *ast.AskExpr, *ast.RetryExpr:
			stops = true
		}
		for _, part := range []ast.Node{arm.Cond, arm.Action} {
			if part == nil {
				continue
			}
			inCond := part == ast.Node(arm.Cond)
			ast.Inspect(part, func(n ast.Node) bool {
				r, ok := n.(*ast.Ref)
				if !ok || r.Name != "input" || len(r.Path) == 0 || r.Path[0].Kind != ast.AccessField {
					return true
				}
				if len(r.Path) > 1 && r.Path[1].Kind == ast.AccessCall {
					return true // a method of the list
				}
				f := r.Path[0].Name
				at := r.Path[0].Pos
				if at.Line == 0 {
					at = r.Pos
				}
				switch {
				case !inputListFields.has(f):
					msg := "@input of " + guardLabel(g) + " is the list of the operation's inputs; it has no field \"" + f + "\""
					if s := inputSynonyms[f]; s != "" {
						msg += "; did you mean ." + s + "?"
					} else if s := closest(f, inputListFields.names); s != "" {
						msg += "; did you mean ." + s + "?"
					} else {
						msg += " (its fields: .any, .all, .none, .mx, .length)"
					}
					c.report(Finding{Pos: at, Severity: Warning, Kind: KindUnknownField, Message: msg + " (at run time it is null: the condition is false)"})
				case f == "all" && stops && inCond:
					c.report(Finding{Pos: at, Severity: Warning, Kind: KindQuantifier,
						Message: "@input.all in an arm that stops the operation matches only when every input does: one matching input among others passes; did you mean .any?"})
				}
				return true
			})
		}
	}
}
