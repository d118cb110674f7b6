package ast

import (
	"fmt"
	"testing"
)

// names lists the node types Inspect meets, in order.
func names(n Node) []string {
	var out []string
	Inspect(n, func(n Node) bool {
		if n != nil {
			out = append(out, fmt.Sprintf("%T", n))
		}
		return true
	})
	return out
}

func TestInspectVisitsInSourceOrder(t *testing.T) {
	doc := &Document{Body: []Node{
		&Prose{Text: "# Title\n"},
		&VarDirective{Name: "x", Value: &BinaryExpr{Op: "&&",
			Left:  &Ref{Name: "a"},
			Right: &UnaryExpr{Op: "!", X: &BoolLit{Value: true}},
		}},
		&ShowDirective{Value: &StringLit{Kind: Backtick, Parts: []TemplatePart{
			&TextPart{Text: "v="},
			&InterpPart{Value: &Ref{Name: "x"}},
		}}},
	}}
	got := names(doc)
	want := []string{"*ast.Document", "*ast.Prose", "*ast.VarDirective", "*ast.BinaryExpr",
		"*ast.Ref", "*ast.UnaryExpr", "*ast.BoolLit", "*ast.ShowDirective", "*ast.StringLit",
		"*ast.TextPart", "*ast.InterpPart", "*ast.Ref"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("visit order:\n got %v\nwant %v", got, want)
	}
}

func TestInspectSkipsChildrenAndNilNodes(t *testing.T) {
	var nilRef *Ref
	doc := &Document{Body: []Node{
		&VarDirective{Name: "x", Value: &ArrayLit{Items: []ArrayItem{{Value: &NumberLit{Value: 1}}}}},
		&ShowDirective{Value: nilRef},
	}}
	var seen []string
	Inspect(doc, func(n Node) bool {
		if n == nil {
			return true
		}
		seen = append(seen, fmt.Sprintf("%T", n))
		_, isVar := n.(*VarDirective)
		return !isVar
	})
	want := "[*ast.Document *ast.VarDirective *ast.ShowDirective]"
	if fmt.Sprint(seen) != want {
		t.Fatalf("got %v, want %s", seen, want)
	}
}
