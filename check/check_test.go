package check_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/guardrun/guardrun/ast"
	"github.com/guardrun/guardrun/check"
)

// The cases in testdata/*.mld are scripts separated by `---` lines, each
// starting with a `>> case: NAME` line that is not part of the script. A finding is expected with a trailing
// comment on its line: `>> want error: SUBSTRING` (several separated by
// ` ;; `). Every finding must be wanted and every want found, so a case
// without wants expects no findings at all.
func TestCheckCases(t *testing.T) {
	files, err := filepath.Glob("testdata/*.mld")
	if err != nil || len(files) == 0 {
		t.Fatal("no testdata", err)
	}
	total := 0
	for _, file := range files {
		for _, cs := range splitCases(t, file) {
			total++
			t.Run(cs.name, func(t *testing.T) { runCase(t, cs) })
		}
	}
	t.Logf("%d check cases", total)
}

type checkCase struct {
	name  string
	file  string
	line  int // first line of the case in file
	src   string
	wants map[int][]want
}

type want struct {
	severity check.Severity
	text     string
}

var (
	caseRe = regexp.MustCompile(`^>> case: (\S+)`)
	wantRe = regexp.MustCompile(`>> want (.*)$`)
	oneRe  = regexp.MustCompile(`^(error|warning): (.+)$`)
)

func splitCases(t *testing.T, file string) []checkCase {
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var out []checkCase
	var cur *checkCase
	var lines []string
	flush := func() {
		if cur != nil {
			cur.src = strings.Join(lines, "\n") + "\n"
			out = append(out, *cur)
		}
		cur, lines = nil, nil
	}
	for i, line := range strings.Split(string(data), "\n") {
		if strings.TrimSpace(line) == "---" {
			flush()
			continue
		}
		if cur == nil {
			if strings.TrimSpace(line) == "" {
				continue
			}
			m := caseRe.FindStringSubmatch(line)
			if m == nil {
				t.Fatalf("%s:%d: a case starts with `>> case: NAME`", file, i+1)
			}
			cur = &checkCase{name: m[1], file: file, line: i + 1, wants: map[int][]want{}}
			continue // the header is not part of the script
		}
		lines = append(lines, line)
		if m := wantRe.FindStringSubmatch(line); m != nil {
			for _, w := range strings.Split(m[1], " ;; ") {
				wm := oneRe.FindStringSubmatch(strings.TrimSpace(w))
				if wm == nil {
					t.Fatalf("%s:%d: bad want %q", file, i+1, w)
				}
				cur.wants[len(lines)] = append(cur.wants[len(lines)], want{check.Severity(wm[1]), wm[2]})
			}
		}
	}
	flush()
	return out
}

func runCase(t *testing.T, cs checkCase) {
	findings, err := check.Source(cs.name+".mld", []byte(cs.src), ast.Strict)
	if err != nil {
		t.Fatalf("%s:%d: %v", cs.file, cs.line, err)
	}
	used := map[int][]bool{}
	for line, ws := range cs.wants {
		used[line] = make([]bool, len(ws))
	}
	for _, f := range findings {
		matched := false
		for i, w := range cs.wants[f.Pos.Line] {
			if !used[f.Pos.Line][i] && w.severity == f.Severity && strings.Contains(f.Message, w.text) {
				used[f.Pos.Line][i], matched = true, true
				break
			}
		}
		if !matched {
			t.Errorf("%s:%d: unexpected finding: %s", cs.file, cs.line+f.Pos.Line, f)
		}
	}
	for line, ws := range cs.wants {
		for i, w := range ws {
			if !used[line][i] {
				t.Errorf("%s:%d: missing %s containing %q; got:\n%s", cs.file, cs.line+line, w.severity, w.text, render(findings))
			}
		}
	}
}

func render(fs []check.Finding) string {
	var b strings.Builder
	for _, f := range fs {
		fmt.Fprintf(&b, "  %s\n", f)
	}
	return b.String()
}
