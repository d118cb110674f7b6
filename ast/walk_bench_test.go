package ast_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/guardrun/guardrun/ast"
	"github.com/guardrun/guardrun/grammar"
)

// starterPolicy parses the starter policy's modules (rules/*.guard), the
// trees a hook process walks on every call.
func starterPolicy(tb testing.TB) []*ast.Document {
	tb.Helper()
	files, err := filepath.Glob("../rules/*.guard")
	if err != nil || len(files) == 0 {
		tb.Fatalf("no starter policy modules: %v", err)
	}
	var docs []*ast.Document
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		doc, err := grammar.Parse(f, src, ast.Strict)
		if err != nil {
			tb.Fatalf("%s: %v", f, err)
		}
		docs = append(docs, doc)
	}
	return docs
}

// BenchmarkInspectStarterPolicy walks every starter module's whole tree,
// as interp.CheckEngines does when a module loads without the engines.
func BenchmarkInspectStarterPolicy(b *testing.B) {
	docs := starterPolicy(b)
	nodes := 0
	for _, d := range docs {
		ast.Inspect(d, func(n ast.Node) bool {
			if n != nil {
				nodes++
			}
			return true
		})
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, d := range docs {
			ast.Inspect(d, func(ast.Node) bool { return true })
		}
	}
	b.ReportMetric(float64(nodes), "nodes/op")
}
