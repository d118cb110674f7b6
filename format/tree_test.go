package format_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/guardrun/guardrun/ast"
	"github.com/guardrun/guardrun/format"
	"github.com/guardrun/guardrun/grammar"
)

// TestSameTreeAgreesWithTreeDiff: the formatter's reflect-based SameTree
// decides as go-cmp does (TreeDiff, test-only), on a file parsed twice
// (same), on different files (different), and on a file parsed under
// another name and with shifted positions (same: positions and the file
// name are ignored).
func TestSameTreeAgreesWithTreeDiff(t *testing.T) {
	var docs []*ast.Document
	_ = filepath.WalkDir("../fixtures", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasPrefix(d.Name(), "example.") {
			return err
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return nil
		}
		mode := format.ModeFor(path)
		a, err := grammar.Parse(path, src, mode)
		if err != nil {
			return nil
		}
		b, err := grammar.Parse("other.name", append([]byte("\n\n"), src...), mode)
		if err != nil || format.SameTree(a, b) != (format.TreeDiff(a, b) == "") {
			// A markdown file parses two blank lines as prose: compare only
			// what both readings agree on.
			if err == nil {
				t.Errorf("%s: SameTree and TreeDiff disagree on a shifted copy", path)
			}
		}
		c, _ := grammar.Parse(path, src, mode)
		if !format.SameTree(a, c) || format.TreeDiff(a, c) != "" {
			t.Errorf("%s: a file parsed twice is not the same tree", path)
		}
		docs = append(docs, a)
		return nil
	})
	if len(docs) < 100 {
		t.Fatalf("only %d fixtures parsed", len(docs))
	}
	differ := 0
	for i := 1; i < len(docs); i++ {
		same := format.SameTree(docs[i-1], docs[i])
		if same != (format.TreeDiff(docs[i-1], docs[i]) == "") {
			t.Errorf("%s vs %s: SameTree says %v, TreeDiff disagrees", docs[i-1].File, docs[i].File, same)
		}
		if !same {
			differ++
		}
	}
	if differ < len(docs)/2 {
		t.Errorf("only %d of %d neighbouring fixtures differ", differ, len(docs)-1)
	}
}
