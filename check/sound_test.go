package check_test

import (
	"context"
	"fmt"
	"github.com/guardrun/guardrun/internal/testshared"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/guardrun/guardrun"
	"github.com/guardrun/guardrun/ast"
	"github.com/guardrun/guardrun/check"
	"github.com/guardrun/guardrun/grammar"
	"github.com/guardrun/guardrun/interp/hooks"
)

// TestLabelFlowSoundOnCorpora checks the may-analysis against real runs:
// whenever a run sends a value carrying a declared label into a sink (an
// exe call, a pipeline stage, a command, show, log, output), the
// analysis must know that label
// can arrive there. Scripts that import modules are left out, and labels
// guards add on the way are not checked (the analysis reads neither, and
// says so).
func TestLabelFlowSoundOnCorpora(t *testing.T) {
	roots := append([]string{"../fixtures"}, testshared.Corpora(t)...)
	checked, misses := 0, 0
	for _, root := range roots {
		_ = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasPrefix(d.Name(), "example") || !(strings.HasSuffix(path, ".mld") || strings.HasSuffix(path, ".md")) {
				return err
			}
			n, miss := soundOne(t, path)
			checked += n
			misses += len(miss)
			for _, m := range miss {
				t.Errorf("%s", m)
			}
			return nil
		})
	}
	t.Logf("%d labelled arrivals at sinks checked, %d missed", checked, misses)
}

func soundOne(t *testing.T, path string) (int, []string) {
	src, err := os.ReadFile(path)
	if err != nil {
		return 0, nil
	}
	mode := ast.Markdown
	gmode := guardrun.Markdown
	if strings.HasSuffix(path, ".mld") {
		mode, gmode = ast.Strict, guardrun.Strict
	}
	doc, err := grammar.Parse(path, src, mode)
	if err != nil {
		return 0, nil
	}
	declared := map[string]bool{}
	imports := false
	ast.Inspect(doc, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.ImportDirective:
			imports = true
		case *ast.VarDirective:
			for _, l := range n.Labels {
				declared[l] = true
			}
		case *ast.ReturnStmt:
			for _, l := range n.Labels {
				declared[l] = true
			}
		}
		return true
	})
	// Labels a guard adds on its way (`trusted @input`, addLabels) are not
	// followed by the analysis (the package doc says so).
	for _, n := range doc.Body {
		if g, ok := n.(*ast.GuardDirective); ok {
			ast.Inspect(g, func(n ast.Node) bool {
				if le, ok := n.(*ast.LabelExpr); ok {
					for _, l := range le.Labels {
						delete(declared, strings.Trim(l, "!"))
					}
				}
				return true
			})
		}
	}
	if imports || len(declared) == 0 {
		return 0, nil
	}
	prg, err := guardrun.Compile(path, src, guardrun.WithMode(gmode))
	if err != nil {
		return 0, nil
	}
	type arrival struct {
		pos   ast.Pos
		label string
		op    string
	}
	var seen []arrival
	work := t.TempDir()
	_ = os.CopyFS(work, os.DirFS(filepath.Dir(path)))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, _ = prg.Run(ctx, guardrun.WithDir(work), guardrun.WithCommandTimeout(2*time.Second), guardrun.WithHooks(func(m *hooks.Manager) {
		m.RegisterPre("sound", func(c *hooks.Call) (hooks.Decision, error) {
			op := c.Op
			sink := op.Type == "exe" && !strings.HasPrefix(op.Subtype, "exe") || op.Type == "run" || op.Type == "show" || op.Type == "log" ||
				op.Type == "pipeline-stage" || op.Type == "output" || op.Type == "append"
			if !sink || op.Location.File != path {
				return hooks.Decision{}, nil
			}
			for _, in := range c.Inputs {
				if in == nil {
					continue
				}
				for _, l := range in.Security.Labels() {
					if declared[l] {
						seen = append(seen, arrival{ast.Pos{File: op.Location.File, Line: op.Location.Line, Col: op.Location.Column}, l, op.Type + " " + op.Name})
					}
				}
			}
			return hooks.Decision{}, nil
		})
	}))
	ix := check.Lineage(doc)
	var miss []string
	for _, a := range seen {
		if len(ix.At(a.pos, []string{a.label})) == 0 {
			miss = append(miss, fmt.Sprintf("%s: %s reaches %s at run time; the analysis does not know it", a.pos, a.label, a.op))
		}
	}
	return len(seen), miss
}
