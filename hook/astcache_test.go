package hook

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	gast "github.com/guardrun/guardrun/ast"
	"github.com/guardrun/guardrun/grammar"
)

// TestASTNodesRegistered: every struct type of package ast is known to
// the cache's gob registry, so no tree silently misses the cache.
func TestASTNodesRegistered(t *testing.T) {
	pkgs, err := parser.ParseDir(token.NewFileSet(), "../ast", func(fi os.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, 0)
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, n := range astNodes {
		have[reflect.TypeOf(n).Elem().Name()] = true
	}
	for _, p := range pkgs {
		for _, f := range p.Files {
			for _, d := range f.Decls {
				g, ok := d.(*ast.GenDecl)
				if !ok {
					continue
				}
				for _, s := range g.Specs {
					ts, ok := s.(*ast.TypeSpec)
					if !ok || !ts.Name.IsExported() || ts.Name.Name == "Pos" {
						continue
					}
					if _, ok := ts.Type.(*ast.StructType); ok && !have[ts.Name.Name] {
						t.Errorf("ast.%s is not in astNodes", ts.Name.Name)
					}
				}
			}
		}
	}
}

// TestASTCacheRoundTrip: every policy and script of the repository's
// fixtures comes back from the cache equal to what the parser made.
func TestASTCacheRoundTrip(t *testing.T) {
	c := &ASTCache{Dir: filepath.Join(t.TempDir(), "ast"), Max: 100000, self: "test"}
	var files []string
	for _, pat := range []string{"../fixtures/*/*/*.mld", "../fixtures/*/*/*.guard", "../fixtures/*/*/*.md", "../rules/*.guard", "testdata/*.guard"} {
		m, _ := filepath.Glob(pat)
		files = append(files, m...)
	}
	if len(files) < 100 {
		t.Fatalf("only %d files found", len(files))
	}
	n := 0
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		mode := gast.Markdown
		if strings.HasSuffix(f, ".mld") || strings.HasSuffix(f, ".guard") {
			mode = gast.Strict
		}
		doc, err := grammar.Parse(f, src, mode)
		if err != nil {
			continue
		}
		c.Store(f, src, mode, doc)
		got := c.Load(f, src, mode)
		if got == nil {
			t.Errorf("%s: not cached", f)
			continue
		}
		if d := cmp.Diff(doc, got, cmpopts.EquateEmpty(), cmpopts.IgnoreFields(gast.Document{}, "Ends")); d != "" {
			t.Errorf("%s: the cached tree differs (-parsed +cached):\n%s", f, d)
		}
		// Ends is keyed by node pointers: compare it by position in Body.
		for i, n := range doc.Body {
			want, wok := doc.Ends[n]
			have, hok := got.Ends[got.Body[i]]
			if want != have || wok != hok {
				t.Errorf("%s: directive %d ends at %d (%v) cached, %d (%v) parsed", f, i, have, hok, want, wok)
			}
		}
		if c.Load(f, append(append([]byte{}, src...), ' '), mode) != nil {
			t.Errorf("%s: a changed source hit the cache", f)
		}
		n++
	}
	t.Logf("%d trees round-tripped", n)
}

// TestASTCacheFallsBack: a corrupt entry or a directory others can write
// is not used.
func TestASTCacheFallsBack(t *testing.T) {
	c := &ASTCache{Dir: filepath.Join(t.TempDir(), "ast"), Max: 10, self: "test"}
	src := []byte("var @x = 1\n")
	doc, err := grammar.Parse("p.guard", src, gast.Strict)
	if err != nil {
		t.Fatal(err)
	}
	c.Store("p.guard", src, gast.Strict, doc)
	if c.Load("p.guard", src, gast.Strict) == nil {
		t.Fatal("not cached")
	}
	if c.Load("q.guard", src, gast.Strict) != nil {
		t.Fatal("another file name hit the cache")
	}
	os.Chmod(c.Dir, 0o777)
	if c.Load("p.guard", src, gast.Strict) != nil {
		t.Error("a world-writable cache was used")
	}
	os.Chmod(c.Dir, 0o700)
	os.WriteFile(c.path("p.guard", src, gast.Strict), []byte("garbage"), 0o600)
	if c.Load("p.guard", src, gast.Strict) != nil {
		t.Error("a corrupt entry was used")
	}
}

// BenchmarkASTCacheLoad loads the starter policy's modules (rules/*.guard)
// from the cache, as every `guardrun hook` call does.
func BenchmarkASTCacheLoad(b *testing.B) {
	c := &ASTCache{Dir: filepath.Join(b.TempDir(), "ast"), Max: 100, self: "bench"}
	files, _ := filepath.Glob("../rules/*.guard")
	if len(files) < 5 {
		b.Fatalf("only %d modules found", len(files))
	}
	srcs := make([][]byte, len(files))
	for i, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		doc, err := grammar.Parse(f, src, gast.Strict)
		if err != nil {
			b.Fatal(err)
		}
		c.Store(f, src, gast.Strict, doc)
		srcs[i] = src
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		for i, f := range files {
			if c.Load(f, srcs[i], gast.Strict) == nil {
				b.Fatalf("%s: not cached", f)
			}
		}
	}
}
