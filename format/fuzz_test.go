package format_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/guardrun/guardrun/ast"
	"github.com/guardrun/guardrun/format"
	"github.com/guardrun/guardrun/grammar"
)

// FuzzFormat checks the formatter's promises on any input that parses:
// no panic, the same tree, and a second run changes nothing.
func FuzzFormat(f *testing.F) {
	for _, pat := range []string{"../examples/*.mld", "../examples/*.md", "../fixtures/*/*/example.mld"} {
		paths, _ := filepath.Glob(pat)
		for _, p := range paths {
			if b, err := os.ReadFile(p); err == nil {
				f.Add(b, p[len(p)-1] == 'd')
			}
		}
	}
	f.Fuzz(func(t *testing.T, src []byte, strict bool) {
		mode := ast.Markdown
		if strict {
			mode = ast.Strict
		}
		orig, err := grammar.Parse("f", src, mode)
		if err != nil {
			return
		}
		res, err := format.Source("f", src, mode)
		if err != nil {
			t.Fatalf("refused a file that parses: %v\n%q", err, src)
		}
		again, err := grammar.Parse("f", res.Text, mode)
		if err != nil {
			t.Fatalf("formatted text does not parse: %v\n%s", err, res.Text)
		}
		if d := format.TreeDiff(orig, again); d != "" {
			t.Fatalf("tree changed:\n%s", d)
		}
		res2, err := format.Source("f", res.Text, mode)
		if err != nil || !bytes.Equal(res.Text, res2.Text) {
			t.Fatalf("not idempotent (%v):\n%q\n%q", err, res.Text, res2.Text)
		}
	})
}
