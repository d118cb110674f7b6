package interp

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/guardrun/guardrun/ast"
	"github.com/guardrun/guardrun/grammar"
)

// BenchmarkCheckEnginesStarterPolicy checks the starter policy's modules
// (rules/*.guard) as a program without either engine does on every load
// (the slim hook binary links neither).
func BenchmarkCheckEnginesStarterPolicy(b *testing.B) {
	files, err := filepath.Glob("../rules/*.guard")
	if err != nil || len(files) == 0 {
		b.Fatalf("no starter policy modules: %v", err)
	}
	var docs []*ast.Document
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		doc, err := grammar.Parse(f, src, ast.Strict)
		if err != nil {
			b.Fatalf("%s: %v", f, err)
		}
		docs = append(docs, doc)
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, d := range docs {
			if err := checkEngines(d, true, true); err != nil {
				b.Fatal(err)
			}
		}
	}
}
