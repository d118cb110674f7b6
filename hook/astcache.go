package hook

import (
	"bytes"
	"crypto/sha256"
	"encoding/gob"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"sync"

	"github.com/guardrun/guardrun/ast"
)

// ASTCache keeps parsed policies on disk, keyed by a hash of the guardrun
// binary's identity (path, size, modification time: a rebuilt binary
// never reads an older one's trees), the file name, the parse mode and
// the source. A hook call then skips building the parser and parsing,
// the bulk of its start-up. Anything unexpected — an unreadable, corrupt
// or foreign entry, a tree gob cannot encode — falls back to parsing:
// the cache can make a call slower, never different.
type ASTCache struct {
	Dir  string
	self string
	// Max is the number of entries kept (older ones are removed).
	Max int
}

// NewASTCache returns a cache in $XDG_CACHE_HOME/guardrun/ast (or
// ~/.cache/guardrun/ast), or nil when there is no usable directory.
func NewASTCache() *ASTCache {
	base, err := xdg("XDG_CACHE_HOME", ".cache")
	if err != nil {
		return nil
	}
	exe, err := os.Executable()
	if err != nil {
		return nil
	}
	st, err := os.Stat(exe)
	if err != nil {
		return nil
	}
	return &ASTCache{Dir: filepath.Join(base, "guardrun", "ast"), Max: 256,
		self: fmt.Sprintf("%s\x00%d\x00%d", exe, st.Size(), st.ModTime().UnixNano())}
}

var registerOnce sync.Once

// registerAST tells gob the syntax tree's node types (interface fields).
func registerAST() {
	registerOnce.Do(func() {
		for _, n := range astNodes {
			gob.Register(n)
		}
	})
}

func (c *ASTCache) path(file string, src []byte, mode ast.Mode) string {
	h := sha256.New()
	fmt.Fprintf(h, "guardrun-ast-2\x00%s\x00%s\x00%d\x00", c.self, file, mode)
	h.Write(src)
	return filepath.Join(c.Dir, hex.EncodeToString(h.Sum(nil)[:20])+".gob")
}

// private reports whether the cache directory is the user's alone: a
// tree others could write would be a policy others could write.
func (c *ASTCache) private() bool {
	st, err := os.Stat(c.Dir)
	return err == nil && st.IsDir() && st.Mode().Perm()&0o022 == 0
}

// Load implements guardrun.ParseCache.
func (c *ASTCache) Load(file string, src []byte, mode ast.Mode) *ast.Document {
	if c == nil || !c.private() {
		return nil
	}
	b, err := os.ReadFile(c.path(file, src, mode))
	if err != nil {
		return nil
	}
	registerAST()
	var cd cachedDoc
	if err := gob.NewDecoder(bytes.NewReader(b)).Decode(&cd); err != nil || cd.Doc == nil ||
		cd.Doc.File != file || cd.Doc.Mode != mode || len(cd.Ends) != len(cd.Doc.Body) {
		return nil
	}
	doc := cd.Doc
	for i, end := range cd.Ends {
		if end < 0 {
			continue
		}
		if doc.Ends == nil {
			doc.Ends = map[ast.Node]int{}
		}
		doc.Ends[doc.Body[i]] = end
	}
	return doc
}

// cachedDoc is what the cache stores: the tree, and Document.Ends by
// position in Body (a map keyed by node pointers does not survive
// encoding).
type cachedDoc struct {
	Doc  *ast.Document
	Ends []int
}

// Store implements guardrun.ParseCache.
func (c *ASTCache) Store(file string, src []byte, mode ast.Mode, doc *ast.Document) {
	if c == nil {
		return
	}
	if err := os.MkdirAll(c.Dir, 0o700); err != nil || !c.private() {
		return
	}
	registerAST()
	d := *doc
	d.Ends = nil
	cd := cachedDoc{Doc: &d, Ends: make([]int, len(doc.Body))}
	for i, n := range doc.Body {
		if end, ok := doc.Ends[n]; ok {
			cd.Ends[i] = end
		} else {
			cd.Ends[i] = -1
		}
	}
	var b bytes.Buffer
	if err := gob.NewEncoder(&b).Encode(cd); err != nil {
		return
	}
	tmp, err := os.CreateTemp(c.Dir, ".tmp-*")
	if err != nil {
		return
	}
	_, werr := tmp.Write(b.Bytes())
	if cerr := tmp.Close(); werr != nil || cerr != nil {
		os.Remove(tmp.Name())
		return
	}
	if os.Rename(tmp.Name(), c.path(file, src, mode)) != nil {
		os.Remove(tmp.Name())
		return
	}
	c.prune()
}

// prune keeps the newest Max entries.
func (c *ASTCache) prune() {
	entries, err := os.ReadDir(c.Dir)
	if err != nil || len(entries) <= c.Max {
		return
	}
	type ent struct {
		name string
		t    int64
	}
	var list []ent
	for _, e := range entries {
		if info, err := e.Info(); err == nil {
			list = append(list, ent{e.Name(), info.ModTime().UnixNano()})
		}
	}
	sort.Slice(list, func(i, j int) bool { return list[i].t > list[j].t })
	for _, e := range list[min(c.Max, len(list)):] {
		os.Remove(filepath.Join(c.Dir, e.name))
	}
}

// astNodes are the syntax tree's node types, registered with gob. A type
// missing here makes encoding a tree that uses it fail, and that tree is
// then parsed each time (TestASTNodesRegistered keeps the list whole).
var astNodes = []any{
	&ast.Document{},
	&ast.Prose{},
	&ast.VarDirective{},
	&ast.ShowDirective{},
	&ast.Param{},
	&ast.ExeDirective{},
	&ast.RunDirective{},
	&ast.WhenDirective{},
	&ast.ForDirective{},
	&ast.IfDirective{},
	&ast.OutputTarget{},
	&ast.OutputDirective{},
	&ast.AppendDirective{},
	&ast.LogDirective{},
	&ast.ImportName{},
	&ast.ImportDirective{},
	&ast.ExportDirective{},
	&ast.GuardDirective{},
	&ast.PolicyDirective{},
	&ast.LetStmt{},
	&ast.AugmentStmt{},
	&ast.ReturnStmt{},
	&ast.ExprStmt{},
	&ast.NullLit{},
	&ast.BoolLit{},
	&ast.NumberLit{},
	&ast.StringLit{},
	&ast.TextPart{},
	&ast.InterpPart{},
	&ast.TemplateFor{},
	&ast.Accessor{},
	&ast.Ref{},
	&ast.ArrayItem{},
	&ast.ArrayLit{},
	&ast.ObjectEntry{},
	&ast.ObjectLit{},
	&ast.UnaryExpr{},
	&ast.BinaryExpr{},
	&ast.TernaryExpr{},
	&ast.CodeExpr{},
	&ast.WithClause{},
	&ast.EffectStage{},
	&ast.Stage{},
	&ast.PipelineExpr{},
	&ast.WhenArm{},
	&ast.WhenExpr{},
	&ast.ForExpr{},
	&ast.ForeachExpr{},
	&ast.BlockExpr{},
	&ast.RetryExpr{},
	&ast.SkipExpr{},
	&ast.DeniedExpr{},
	&ast.AllowExpr{},
	&ast.DenyExpr{},
	&ast.LoopExpr{},
	&ast.LoopCtlExpr{},
	&ast.LoopDirective{},
	&ast.ShadowDirective{},
	&ast.ShowJoin{},
	&ast.TemplateFile{},
	&ast.LeadParallel{},
	&ast.HookDirective{},
	&ast.AskExpr{},
	&ast.LabelExpr{},
	&ast.FileLoad{},
}
