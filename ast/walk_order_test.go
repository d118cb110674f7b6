package ast_test

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/guardrun/guardrun/ast"
	"github.com/guardrun/guardrun/grammar"
)

var update = flag.Bool("update", false, "rewrite testdata/walk.golden")

// tracer records the calls Walk makes: "T@line:col(" for a node and ")"
// for the Visit(nil) after its children.
type tracer struct {
	b     *strings.Builder
	kinds map[string]bool
}

func (t tracer) Visit(n ast.Node) ast.Visitor {
	if n == nil {
		t.b.WriteString(")")
		return nil
	}
	kind := strings.TrimPrefix(fmt.Sprintf("%T", n), "*ast.")
	t.kinds[kind] = true
	p := n.Position()
	fmt.Fprintf(t.b, "\n%s@%d:%d(", kind, p.Line, p.Col)
	return t
}

// The order in which Walk visits nodes, the Visit(nil) after each node's
// children included, is pinned on a tree holding every kind of node Walk
// descends into: analyses (CheckEngines, planGuard, check) depend on it.
func TestWalkOrderIsPinned(t *testing.T) {
	src, err := os.ReadFile("testdata/walk.mld")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := grammar.Parse("walk.mld", src, ast.Strict)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	tr := tracer{b: &b, kinds: map[string]bool{}}
	ast.Walk(tr, doc)
	got := b.String() + "\n"
	if len(tr.kinds) < 55 {
		t.Errorf("the corpus holds %d node kinds, want at least 55: %v", len(tr.kinds), tr.kinds)
	}
	if *update {
		if err := os.WriteFile("testdata/walk.golden", []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile("testdata/walk.golden")
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		gl, wl := strings.Split(got, "\n"), strings.Split(string(want), "\n")
		for i := range min(len(gl), len(wl)) {
			if gl[i] != wl[i] {
				t.Fatalf("walk order differs at line %d:\n got %s\nwant %s", i+1, gl[i], wl[i])
			}
		}
		t.Fatalf("walk order differs in length: got %d lines, want %d", len(gl), len(wl))
	}
}
