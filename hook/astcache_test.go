package hook

import (
	"bytes"
	"crypto/sha256"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	gast "github.com/guardrun/guardrun/ast"
	"github.com/guardrun/guardrun/grammar"
	"github.com/guardrun/guardrun/internal/astcodec"
)

// TestASTCacheRoundTrip: every policy and script of the repository's
// fixtures comes back from the cache equal to what the parser made.
func TestASTCacheRoundTrip(t *testing.T) {
	c := &ASTCache{Dir: filepath.Join(t.TempDir(), "ast"), Max: 100000, key: cacheKey("test")}
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
		if d := cmp.Diff(doc, got, cmpopts.IgnoreFields(gast.Document{}, "Ends")); d != "" {
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
	c := &ASTCache{Dir: filepath.Join(t.TempDir(), "ast"), Max: 10, key: cacheKey("test")}
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
	// The directory is checked once per cache (a hook process makes one
	// per call): a new process sees the change.
	later := &ASTCache{Dir: c.Dir, Max: 10, key: c.key}
	if later.Load("p.guard", src, gast.Strict) != nil {
		t.Error("a world-writable cache was used")
	}
	os.Chmod(c.Dir, 0o700)
	srcSum := sha256.Sum256(src)
	entry := c.path("p.guard", &srcSum, gast.Strict)
	good, err := os.ReadFile(entry)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(entry, []byte("garbage"), 0o600)
	if c.Load("p.guard", src, gast.Strict) != nil {
		t.Error("a corrupt entry was used")
	}
	os.WriteFile(entry, good[:len(good)-1], 0o600)
	if c.Load("p.guard", src, gast.Strict) != nil {
		t.Error("a truncated entry was used")
	}
	old := append([]byte{}, good...)
	old[sha256.Size+len(astcodec.Format)-1]--
	os.WriteFile(entry, old, 0o600)
	if c.Load("p.guard", src, gast.Strict) != nil {
		t.Error("an entry of another format version was used")
	}
	// Another file's tree under this key (a collision, a copied entry).
	other, err := grammar.Parse("q.guard", src, gast.Strict)
	if err != nil {
		t.Fatal(err)
	}
	b, err := astcodec.Encode(other)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(entry, append(srcSum[:], b...), 0o600)
	if c.Load("p.guard", src, gast.Strict) != nil {
		t.Error("another file's tree was used")
	}
	os.WriteFile(entry, good, 0o600)
	if c.Load("p.guard", src, gast.Markdown) != nil {
		t.Error("the tree of another parse mode was used")
	}
	if c.Load("p.guard", src, gast.Strict) == nil {
		t.Error("the restored entry was not used")
	}
}

// TestASTCacheEntryFormat: an entry is named *.ast and starts with the
// SHA-256 of its source, then the codec's format version, so the entries
// of earlier builds (keyed "guardrun-ast-2" and "-3") are never read, and
// a later format is told apart.
func TestASTCacheEntryFormat(t *testing.T) {
	c := &ASTCache{Dir: filepath.Join(t.TempDir(), "ast"), Max: 10, key: cacheKey("test")}
	src := []byte("var @x = 1\n")
	doc, err := grammar.Parse("p.guard", src, gast.Strict)
	if err != nil {
		t.Fatal(err)
	}
	c.Store("p.guard", src, gast.Strict, doc)
	entries, _ := os.ReadDir(c.Dir)
	if len(entries) != 1 || !strings.HasSuffix(entries[0].Name(), ".ast") {
		t.Fatalf("entries %v", entries)
	}
	b, _ := os.ReadFile(filepath.Join(c.Dir, entries[0].Name()))
	srcSum := sha256.Sum256(src)
	if !bytes.HasPrefix(b, srcSum[:]) {
		t.Errorf("the entry does not start with its source's SHA-256: %x", b[:sha256.Size])
	}
	if !strings.HasPrefix(string(b[sha256.Size:]), astcodec.Format) {
		t.Errorf("the entry does not go on with the format version: %q", b[sha256.Size:sha256.Size+8])
	}
}

// TestASTCacheEntryOfAnotherSource (ast-cache-poison): the entry of
// another text of the same file, copied over the entry of the approved
// text, is not used for the approved text: the entry's tree is tied to
// the source it was parsed from by that source's SHA-256.
func TestASTCacheEntryOfAnotherSource(t *testing.T) {
	c := &ASTCache{Dir: filepath.Join(t.TempDir(), "ast"), Max: 10, key: cacheKey("test")}
	approved := []byte("guard @noDeploy before op:cmd:make = when [\n  * => deny \"no\"\n]\n")
	planted := []byte("run cmd { touch PWNED }\n")
	for _, src := range [][]byte{approved, planted} {
		doc, err := grammar.Parse("/ws/.guardrun/policy.guard", src, gast.Strict)
		if err != nil {
			t.Fatal(err)
		}
		c.Store("/ws/.guardrun/policy.guard", src, gast.Strict, doc)
	}
	a, p := sha256.Sum256(approved), sha256.Sum256(planted)
	b, err := os.ReadFile(c.path("/ws/.guardrun/policy.guard", &p, gast.Strict))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(c.path("/ws/.guardrun/policy.guard", &a, gast.Strict), b, 0o600); err != nil {
		t.Fatal(err)
	}
	if doc := c.Load("/ws/.guardrun/policy.guard", approved, gast.Strict); doc != nil {
		t.Fatalf("the planted text's tree was used for the approved text: %d directives", len(doc.Body))
	}
}

// BenchmarkASTCacheLoad loads the starter policy's modules (rules/*.guard)
// from the cache, as every `guardrun hook` call does.
func BenchmarkASTCacheLoad(b *testing.B) {
	c := &ASTCache{Dir: filepath.Join(b.TempDir(), "ast"), Max: 100, key: cacheKey("bench")}
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
