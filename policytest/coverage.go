package policytest

import (
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/guardrun/guardrun/ast"
	"github.com/guardrun/guardrun/grammar"
)

// Point is one thing coverage tracks: a guard, or a when arm (guard
// rules included).
type Point struct {
	Pos ast.Pos `json:"-"`
	// Kind is "guard" or "arm".
	Kind string `json:"kind"`
	// Label names it: "guard @noSecretToNet", "* => allow".
	Label   string `json:"label"`
	Reached bool   `json:"reached"`
}

// Coverage collects the points of the files under test and the ones
// runs reach. It is safe for concurrent use.
type Coverage struct {
	mu     sync.Mutex
	points []*Point
	byKey  map[string]*Point
	files  map[string]bool
}

// NewCoverage returns an empty Coverage.
func NewCoverage() *Coverage {
	return &Coverage{byKey: map[string]*Point{}, files: map[string]bool{}}
}

func posKey(p ast.Pos) string {
	return filepath.Clean(p.File) + ":" + strconv.Itoa(p.Line) + ":" + strconv.Itoa(p.Col)
}

// AddFile records the guards and when arms of a script file and of the
// modules it imports (local paths). A file that does not parse has no
// points (its tests report the error).
func (c *Coverage) AddFile(path string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.addFileLocked(path)
}

// addFileLocked is AddFile with c.mu held; it adds the modules path
// imports too.
func (c *Coverage) addFileLocked(path string) {
	path = filepath.Clean(path)
	if c.files[path] {
		return
	}
	c.files[path] = true
	src, err := os.ReadFile(path)
	if err != nil {
		return
	}
	mode := ast.Markdown
	if strings.HasSuffix(path, ".mld") || strings.HasSuffix(path, ".guard") {
		mode = ast.Strict
	}
	doc, err := grammar.Parse(path, src, mode)
	if err != nil {
		return
	}
	add := func(p ast.Pos, kind, label string) {
		pt := &Point{Pos: p, Kind: kind, Label: label}
		c.points = append(c.points, pt)
		c.byKey[posKey(p)] = pt
	}
	var imports []string
	ast.Inspect(doc, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.ImportDirective:
			// A module's guards and arms decide too (the starter policy is
			// all imports): count them.
			if p := n.Path; p != "" && !strings.HasPrefix(p, "@") && !strings.Contains(p, "://") {
				if !filepath.IsAbs(p) {
					p = filepath.Join(filepath.Dir(path), p)
				}
				imports = append(imports, p)
			}
		case *ast.GuardDirective:
			label := "guard " + n.Timing + " " + n.Trigger
			if n.Name != "" {
				label = "guard @" + n.Name
			}
			add(n.Pos, "guard", label)
		case *ast.WhenArm:
			if !n.Let {
				add(n.Pos, "arm", armLabel(src, n))
			}
		}
		return true
	})
	for _, p := range imports {
		c.addFileLocked(p)
	}
}

// armLabel is the arm's first source line, shortened.
func armLabel(src []byte, a *ast.WhenArm) string {
	text := string(src[min(a.Pos.Offset, len(src)):])
	if i := strings.IndexByte(text, '\n'); i >= 0 {
		text = text[:i]
	}
	text = strings.TrimSpace(text)
	if len(text) > 60 {
		text = text[:57] + "..."
	}
	return text
}

// Hit marks the point at p reached.
func (c *Coverage) Hit(p ast.Pos) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if pt := c.byKey[posKey(p)]; pt != nil {
		pt.Reached = true
	}
}

// Points returns every point in file and position order.
func (c *Coverage) Points() []Point {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]Point, len(c.points))
	for i, p := range c.points {
		out[i] = *p
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i].Pos, out[j].Pos
		if a.File != b.File {
			return a.File < b.File
		}
		return a.Offset < b.Offset
	})
	return out
}
