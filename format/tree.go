package format

import (
	"reflect"

	"github.com/guardrun/guardrun/ast"
)

// Tree comparison for the formatter's safety check: two trees are the same
// when they are equal field by field, ignoring positions (ast.Pos), a
// string literal's source spelling (StringLit.Raw) and a document's file
// name and directive end offsets. Written with reflect rather than a
// comparison library so that the guardrun binary links no test tooling.

var (
	posType       = reflect.TypeOf(ast.Pos{})
	stringLitType = reflect.TypeOf(ast.StringLit{})
	documentType  = reflect.TypeOf(ast.Document{})
)

// ignoredField reports whether field i of struct type t is left out of
// the comparison.
func ignoredField(t reflect.Type, i int) bool {
	f := t.Field(i)
	switch {
	case f.Type == posType:
		return true
	case t == stringLitType:
		return f.Name == "Raw"
	case t == documentType:
		return f.Name == "Ends" || f.Name == "File"
	}
	return false
}

func sameNode(a, b ast.Node) bool { return sameValue(reflect.ValueOf(a), reflect.ValueOf(b)) }

// SameTree reports whether two documents have the same syntax tree,
// positions and source spellings aside.
func SameTree(a, b *ast.Document) bool { return sameValue(reflect.ValueOf(a), reflect.ValueOf(b)) }

func sameValue(a, b reflect.Value) bool {
	if a.IsValid() != b.IsValid() {
		return false
	}
	if !a.IsValid() {
		return true
	}
	if a.Type() != b.Type() {
		return false
	}
	switch a.Kind() {
	case reflect.Pointer, reflect.Interface:
		if a.IsNil() || b.IsNil() {
			return a.IsNil() == b.IsNil()
		}
		return sameValue(a.Elem(), b.Elem())
	case reflect.Struct:
		if a.Type() == posType {
			return true
		}
		for i := 0; i < a.NumField(); i++ {
			if ignoredField(a.Type(), i) {
				continue
			}
			if !sameValue(a.Field(i), b.Field(i)) {
				return false
			}
		}
		return true
	case reflect.Slice:
		if a.IsNil() != b.IsNil() || a.Len() != b.Len() {
			return false
		}
		fallthrough
	case reflect.Array:
		for i := 0; i < a.Len(); i++ {
			if !sameValue(a.Index(i), b.Index(i)) {
				return false
			}
		}
		return true
	case reflect.Map:
		// No map in the syntax tree is compared (Document.Ends is left
		// out); refuse rather than guess.
		return a.Len() == 0 && b.Len() == 0
	case reflect.Func, reflect.Chan, reflect.UnsafePointer:
		return a.IsNil() && b.IsNil()
	default:
		return a.Equal(b)
	}
}
