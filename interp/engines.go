package interp

import (
	"github.com/guardrun/guardrun/ast"
	"github.com/guardrun/guardrun/interp/code"
	"github.com/guardrun/guardrun/interp/value"
)

// CheckEngines returns, as an *Error wrapping code.ErrNotLinked at its
// position, the first construct of doc that needs an engine this program
// was built without: a js or node block or a JavaScript shadow
// environment without the JavaScript engine, a token count (`.mx.tokens`,
// or the whole `.mx` object, which holds one) without the token counter.
// It looks at the syntax only, so a policy is refused before it decides
// anything rather than on the first call that reaches the construct; what
// it cannot see (a template file's interpolations) fails when it runs.
// It costs nothing when both engines are linked.
func CheckEngines(doc *ast.Document) error {
	return checkEngines(doc, !code.HasJS(), value.RegisteredTokenCounter() == nil)
}

// checkEngines is CheckEngines for a program that lacks the JavaScript
// engine when needJS is set and the token counter when needTokens is (a
// parameter so that a test binary, which links both, can exercise it).
func checkEngines(doc *ast.Document, needJS, needTokens bool) error {
	if doc == nil || !needJS && !needTokens {
		return nil
	}
	c := &engineCheck{needJS: needJS, needTokens: needTokens}
	ast.Walk(c, doc)
	return c.found
}

// engineCheck is checkEngines' visitor: a type rather than an Inspect
// closure, so a check costs one allocation and one call per node (every
// module a policy imports is checked as it loads).
type engineCheck struct {
	needJS, needTokens bool
	found              error // the first construct met that cannot run
}

// Visit implements ast.Visitor.
func (c *engineCheck) Visit(n ast.Node) ast.Visitor {
	if c.found != nil {
		return nil
	}
	switch x := n.(type) {
	case *ast.CodeExpr:
		if c.needJS && isJSLang(x.Lang) {
			c.found = jsNotLinked(x.Pos, x.Lang+" block")
		}
	case *ast.ShadowDirective:
		if c.needJS && isJSLang(x.Lang) {
			c.found = jsNotLinked(x.Pos, "the "+x.Lang+" shadow environment")
		}
	case *ast.Ref:
		if c.needTokens && countsTokens(x.Path) {
			c.found = tokensNotLinked(x.Pos)
		}
	}
	if c.found != nil {
		return nil
	}
	return c
}

// isJSLang reports whether a code block or shadow environment of lang
// runs JavaScript.
func isJSLang(lang string) bool {
	switch lang {
	case "js", "javascript", "node", "nodejs":
		return true
	}
	return false
}

// countsTokens reports whether a reference path may count tokens: it
// reads `.mx` and then `.tokens`, or `.mx` as a whole (the object holds
// the count), or indexes it by an expression. Any other field after
// `.mx` does not.
func countsTokens(path []ast.Accessor) bool {
	for i, a := range path {
		if a.Kind != ast.AccessField || a.Name != "mx" {
			continue
		}
		if i+1 == len(path) {
			return true
		}
		next := path[i+1]
		if next.Kind != ast.AccessField || next.Name == "tokens" {
			return true
		}
	}
	return false
}

func jsNotLinked(pos ast.Pos, what string) *Error {
	return &Error{Kind: KindCode, Pos: pos, Err: code.ErrNotLinked,
		Message: what + " needs the JavaScript engine, and this program was built without it",
		Hint:    "run it with the guardrun command; a Go program embedding guardrun adds " + code.JSImport}
}

func tokensNotLinked(pos ast.Pos) *Error {
	return &Error{Kind: KindCode, Pos: pos, Err: code.ErrNotLinked,
		Message: "a token count (.mx.tokens) needs the token counter, and this program was built without it",
		Hint:    "use .mx.tokest for the length-based estimate, or run it with the guardrun command; a Go program embedding guardrun adds " + value.TokensImport}
}
