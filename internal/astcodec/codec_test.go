package astcodec

import (
	"github.com/guardrun/guardrun/internal/testshared"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/guardrun/guardrun/ast"
	"github.com/guardrun/guardrun/grammar"
)

// corpus is every script and policy of the repository and of both
// conformance corpora.
func corpus(t testing.TB) []string {
	var files []string
	for _, root := range append([]string{"../../fixtures", "../../rules", "../../examples"}, testshared.Corpora(t)...) {
		err := filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			switch filepath.Ext(p) {
			case ".mld", ".md", ".guard":
				files = append(files, p)
			}
			return nil
		})
		if err != nil {
			t.Fatalf("%s: %v", root, err)
		}
	}
	return files
}

func modeOf(file string) ast.Mode {
	if strings.HasSuffix(file, ".md") {
		return ast.Markdown
	}
	return ast.Strict
}

// parsedCorpus parses each corpus file in both modes (each shape of tree
// the parser makes, whatever the file's extension).
func parsedCorpus(t testing.TB) []*ast.Document {
	var docs []*ast.Document
	for _, f := range corpus(t) {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, mode := range []ast.Mode{modeOf(f), 1 - modeOf(f)} {
			if doc, err := grammar.Parse(f, src, mode); err == nil {
				docs = append(docs, doc)
			}
		}
	}
	return docs
}

// TestRoundTripCorpus: parse → Encode → Decode gives a tree deeply equal
// to the parsed one, Document.Ends included, for every file of the
// repository and the conformance corpora; and it reaches every node type.
func TestRoundTripCorpus(t *testing.T) {
	docs := parsedCorpus(t)
	if len(docs) < 2000 {
		t.Fatalf("only %d trees parsed", len(docs))
	}
	seen := map[reflect.Type]bool{}
	for _, doc := range docs {
		b, err := Encode(doc)
		if err != nil {
			t.Errorf("%s: %v", doc.File, err)
			continue
		}
		got, err := Decode(b)
		if err != nil {
			t.Errorf("%s: %v", doc.File, err)
			continue
		}
		if !reflect.DeepEqual(withoutEnds(doc), withoutEnds(got)) {
			t.Errorf("%s: the decoded tree differs from the parsed one", doc.File)
		}
		if (doc.Ends == nil) != (got.Ends == nil) || len(doc.Ends) != len(got.Ends) {
			t.Errorf("%s: Ends has %d entries (nil %v), decoded %d (nil %v)", doc.File,
				len(doc.Ends), doc.Ends == nil, len(got.Ends), got.Ends == nil)
		}
		for i, n := range doc.Body {
			want, wok := doc.Ends[n]
			have, hok := got.Ends[got.Body[i]]
			if want != have || wok != hok {
				t.Errorf("%s: directive %d ends at %d (%v) decoded, %d (%v) parsed", doc.File, i, have, hok, want, wok)
			}
		}
		ast.Inspect(doc, func(n ast.Node) bool {
			if n != nil {
				seen[reflect.TypeOf(n)] = true
			}
			return true
		})
	}
	t.Logf("%d trees round-tripped; %d node types seen", len(docs), len(seen))
	if len(seen) < 50 {
		t.Errorf("the corpus reaches only %d node types", len(seen))
	}
}

func withoutEnds(d *ast.Document) ast.Document {
	c := *d
	c.Ends = nil
	return c
}

// TestRoundTripEdges: what the parser rarely makes still survives —
// typed nil nodes, nil against empty slices and maps, odd floats,
// negative numbers, positions in other files.
func TestRoundTripEdges(t *testing.T) {
	negZero := math.Copysign(0, -1)
	prose := &ast.Prose{Pos: ast.Pos{File: "other.md", Line: -1, Col: math.MaxInt, Offset: math.MinInt}, Text: "x\x00é"}
	doc := &ast.Document{File: "e.mld", Mode: ast.Strict, Frontmatter: "k: v", Body: []ast.Node{
		prose,
		&ast.ShowDirective{Value: (*ast.Ref)(nil)},
		&ast.VarDirective{Labels: []string{}, Value: &ast.ArrayLit{Items: []ast.ArrayItem{
			{Value: &ast.NumberLit{Value: math.NaN()}},
			{Value: &ast.NumberLit{Value: negZero}, Spread: true},
			{Value: &ast.NumberLit{Value: math.Inf(-1)}, Optional: true},
		}}},
		&ast.ExeDirective{Params: []ast.Param{}, Body: &ast.StringLit{Parts: []ast.TemplatePart{}}},
		&ast.IfDirective{Then: &ast.BlockExpr{Stmts: []ast.Directive{(*ast.LetStmt)(nil)}}, Else: (*ast.IfDirective)(nil)},
		nil,
	}, Ends: map[ast.Node]int{prose: -7}}
	b, err := Encode(doc)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	// DeepEqual calls NaN unequal to itself: compare its bits apart.
	nan := got.Body[2].(*ast.VarDirective).Value.(*ast.ArrayLit).Items[0].Value.(*ast.NumberLit)
	if math.Float64bits(nan.Value) != math.Float64bits(math.NaN()) {
		t.Errorf("NaN came back as %v", nan.Value)
	}
	nan.Value = 0
	doc.Body[2].(*ast.VarDirective).Value.(*ast.ArrayLit).Items[0].Value.(*ast.NumberLit).Value = 0
	if !reflect.DeepEqual(withoutEnds(doc), withoutEnds(got)) {
		t.Errorf("decoded %#v", got)
	}
	if z := got.Body[2].(*ast.VarDirective).Value.(*ast.ArrayLit).Items[1].Value.(*ast.NumberLit).Value; !math.Signbit(z) {
		t.Error("-0 lost its sign")
	}
	if len(got.Ends) != 1 || got.Ends[got.Body[0]] != -7 {
		t.Errorf("Ends = %v", got.Ends)
	}

	empty := &ast.Document{Ends: map[ast.Node]int{}}
	if got := roundTrip(t, empty); got.Ends == nil || got.Body != nil {
		t.Errorf("an empty Ends or a nil Body changed: %#v", got)
	}
}

func roundTrip(t *testing.T, doc *ast.Document) *ast.Document {
	t.Helper()
	b, err := Encode(doc)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// TestEncodeRefuses: trees the encoding would not reproduce are errors,
// so a cache stores nothing rather than something different.
func TestEncodeRefuses(t *testing.T) {
	orphan := &ast.Prose{}
	if _, err := Encode(&ast.Document{Ends: map[ast.Node]int{orphan: 1}}); err == nil {
		t.Error("Ends keyed by a node outside Body was encoded")
	}
	var deep ast.Expr = &ast.NullLit{}
	for range MaxDepth {
		deep = &ast.UnaryExpr{Op: "!", X: deep}
	}
	if _, err := Encode(&ast.Document{Body: []ast.Node{&ast.ShowDirective{Value: deep}}}); err == nil {
		t.Error("a tree deeper than MaxDepth was encoded")
	}
	if _, err := Encode(&ast.Document{Body: []ast.Node{foreign{}}}); err == nil {
		t.Error("a node type outside package ast was encoded")
	}
}

type foreign struct{}

func (foreign) Position() ast.Pos { return ast.Pos{} }

// TestDecodeRefusesDamage: every truncation and single-byte change of a
// real encoding decodes to an error or to some tree, never a panic; the
// unchanged bytes decode; another format version is refused.
func TestDecodeRefusesDamage(t *testing.T) {
	src, err := os.ReadFile("../../rules/policy.guard")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := grammar.Parse("policy.guard", src, ast.Strict)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Encode(doc)
	if err != nil {
		t.Fatal(err)
	}
	for n := range len(b) {
		if _, err := Decode(b[:n]); err == nil {
			t.Fatalf("a truncation to %d of %d bytes decoded", n, len(b))
		}
	}
	if _, err := Decode(append(append([]byte{}, b...), 0)); err == nil {
		t.Error("trailing bytes were accepted")
	}
	c := append([]byte{}, b...)
	for i := range c {
		for _, x := range []byte{0x01, 0x80, 0xff} {
			c[i] ^= x
			Decode(c)
			c[i] ^= x
		}
	}
	old := append([]byte{}, b...)
	old[len(Format)-1]++
	if _, err := Decode(old); err == nil {
		t.Error("another format version was decoded")
	}
}

// TestDecodeBoundsHostileCounts: counts that claim more elements than
// the input could hold are refused before anything is allocated for them.
func TestDecodeBoundsHostileCounts(t *testing.T) {
	b := []byte(Format)
	for range nSlabs {
		b = append(b, 0xff, 0xff, 0xff, 0xff, 0x0f) // 2^32-1 each
	}
	b = append(b, 0)
	allocs := testing.AllocsPerRun(10, func() {
		if _, err := Decode(b); err == nil {
			t.Fatal("decoded")
		}
	})
	if allocs > 3 {
		t.Errorf("%v allocations for a refused header", allocs)
	}
}

// FuzzASTDecode: Decode never panics or hangs on any input, and whatever
// it accepts is a tree Encode takes whose encoding is a fixed point.
func FuzzASTDecode(f *testing.F) {
	for _, name := range []string{"policy", "secrets", "exfil", "tools", "stale"} {
		src, err := os.ReadFile("../../rules/" + name + ".guard")
		if err != nil {
			f.Fatal(err)
		}
		doc, err := grammar.Parse(name+".guard", src, ast.Strict)
		if err != nil {
			f.Fatal(err)
		}
		b, err := Encode(doc)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	src := "# t\n/var @x = [1, \"a@b\", {k: @y.z[0]}]\n/show `v=@x`\n/exe @f(a) = when [@a => \"y\"; * => \"n\"]\n"
	doc, err := grammar.Parse("t.md", []byte(src), ast.Markdown)
	if err != nil {
		f.Fatal(err)
	}
	b, err := Encode(doc)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Fuzz(func(t *testing.T, b []byte) {
		doc, err := Decode(b)
		if err != nil {
			return
		}
		again, err := Encode(doc)
		if err != nil {
			t.Fatalf("a decoded tree does not encode: %v", err)
		}
		doc, err = Decode(again)
		if err != nil {
			t.Fatalf("a re-encoded tree does not decode: %v", err)
		}
		if third, err := Encode(doc); err != nil || string(third) != string(again) {
			t.Fatalf("encoding is not a fixed point (%v)", err)
		}
	})
}

// BenchmarkDecode decodes the starter policy's modules.
func BenchmarkDecode(b *testing.B) {
	files, _ := filepath.Glob("../../rules/*.guard")
	var encs [][]byte
	for _, f := range files {
		src, _ := os.ReadFile(f)
		doc, err := grammar.Parse(f, src, ast.Strict)
		if err != nil {
			b.Fatal(err)
		}
		e, err := Encode(doc)
		if err != nil {
			b.Fatal(err)
		}
		encs = append(encs, e)
	}
	b.ReportAllocs()
	for range b.N {
		for _, e := range encs {
			if _, err := Decode(e); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// TestDecodeRefusesDuplicateEnds: Ends entries for two equal Body
// elements (the same typed nil) are refused, as Encode refuses them.
func TestDecodeRefusesDuplicateEnds(t *testing.T) {
	twins := []ast.Node{(*ast.Prose)(nil), (*ast.Prose)(nil)}
	if _, err := Encode(&ast.Document{Body: twins, Ends: map[ast.Node]int{(*ast.Prose)(nil): 1}}); err == nil {
		t.Error("Encode took an Ends entry for two elements")
	}
	b, err := Encode(&ast.Document{Body: twins, Ends: map[ast.Node]int{}})
	if err != nil {
		t.Fatal(err)
	}
	// The encoding ends with Ends: flag 1, then per element 0 (none) or
	// 1 and the end (zigzag).
	if tail := string(b[len(b)-3:]); tail != "\x01\x00\x00" {
		t.Fatalf("unexpected tail %q", tail)
	}
	one := append(append([]byte{}, b[:len(b)-2]...), 1, 2, 0)
	if _, err := Decode(one); err != nil {
		t.Fatalf("one entry: %v", err)
	}
	both := append(append([]byte{}, b[:len(b)-2]...), 1, 2, 1, 2)
	if _, err := Decode(both); err == nil {
		t.Error("two entries for equal keys were decoded")
	}
}
