package grammar

import (
	"fmt"
	"slices"

	"github.com/guardrun/guardrun/ast"
	"github.com/guardrun/guardrun/lang"
)

// reservedNames says what name is when a script can never bind it: `@mx`
// is the ambient context and the helpers decide inside guards. A binding of one
// would let a script forge what a guard sees, so Parse refuses it wherever
// a name is bound (var, let, +=, exe names and parameters, for variables,
// imports, policies); checking when the script is parsed costs a run
// nothing. @prefixWith and @tagValue are not reserved: a
// script may define them (SPEC §5.6); inside guards @prefixWith is always
// the builtin, and a @tagValue of the guard's own module wins.
func reservedNames(name string) (string, bool) {
	switch name {
	case "mx":
		return "the ambient context @mx", true
	}
	if slices.Contains(lang.ReservedHelpers, name) {
		return "the guard helper @" + name, true
	}
	return "", false
}

// checkReservedNames refuses a document that binds a reserved name.
func checkReservedNames(doc *ast.Document) error {
	var err error
	check := func(name string, pos ast.Pos) {
		if err == nil {
			err = reservedBinding(name, pos)
		}
	}
	ast.Inspect(doc, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.VarDirective:
			check(n.Name, n.Pos)
		case *ast.LetStmt:
			check(n.Name, n.Pos)
		case *ast.AugmentStmt:
			check(n.Name, n.Pos)
		case *ast.PolicyDirective:
			check(n.Name, n.Pos)
		case *ast.ExeDirective:
			check(n.Name, n.Pos)
			for _, p := range n.Params {
				pos := p.Pos
				if pos.Line == 0 {
					pos = n.Pos
				}
				check(p.Name, pos)
			}
		case *ast.ForExpr:
			check(n.Var, n.Pos)
			check(n.Key, n.Pos)
		case *ast.TemplateFor:
			check(n.Var, n.Pos)
			check(n.Key, n.Pos)
		case *ast.ImportDirective:
			check(n.Namespace, n.Pos)
			for _, in := range n.Names {
				name := in.Alias
				if name == "" {
					name = in.Name
				}
				check(name, in.Pos)
			}
		}
		return err == nil
	})
	return err
}

// reservedBinding is the error for binding name, nil when it is free.
func reservedBinding(name string, pos ast.Pos) error {
	what, ok := reservedNames(name)
	if !ok {
		return nil
	}
	return &Error{Pos: pos, Found: "@" + name,
		Message: fmt.Sprintf("'@%s' is reserved (%s) and cannot be bound", name, what),
		Hint:    "choose another name: @" + name + " is reserved so that a script cannot change what guards see"}
}
