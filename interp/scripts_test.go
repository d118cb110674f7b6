package interp_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/guardrun/guardrun/ast"
	"github.com/guardrun/guardrun/grammar"
	"github.com/guardrun/guardrun/interp"
)

// scriptCase is one case of a testdata file:
//
//	=== name[.md]
//	script
//	--- doc
//	expected document
//	--- stderr
//	expected stderr
//	--- error
//	substring of the error message
//	--- parse-error
//	substring of the parse error (the script does not run)
//
// A name ending in .md runs in markdown mode, anything else in strict mode.
type scriptCase struct {
	name, script string
	sections     map[string]string
}

func parseCases(t *testing.T, path string) []scriptCase {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var cases []scriptCase
	var cur *scriptCase
	section := ""
	var buf []string
	flush := func() {
		if cur == nil {
			return
		}
		text := strings.Join(buf, "\n")
		if section == "" {
			cur.script = text
		} else {
			cur.sections[section] = text
		}
		buf = nil
	}
	for _, line := range strings.Split(string(b), "\n") {
		switch {
		case strings.HasPrefix(line, "=== "):
			flush()
			if cur != nil {
				cases = append(cases, *cur)
			}
			cur = &scriptCase{name: strings.TrimPrefix(line, "=== "), sections: map[string]string{}}
			section = ""
		case strings.HasPrefix(line, "--- ") && cur != nil:
			flush()
			section = strings.TrimPrefix(line, "--- ")
		default:
			buf = append(buf, line)
		}
	}
	flush()
	if cur != nil {
		cases = append(cases, *cur)
	}
	return cases
}

func TestScripts(t *testing.T) {
	files, err := filepath.Glob("testdata/*.txt")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		for _, c := range parseCases(t, f) {
			t.Run(filepath.Base(f)+"/"+c.name, func(t *testing.T) {
				runScriptCase(t, c)
			})
		}
	}
}

func runScriptCase(t *testing.T, c scriptCase) {
	dir := t.TempDir()
	mode := ast.Strict
	file := "example.mld"
	if strings.HasSuffix(c.name, ".md") {
		mode, file = ast.Markdown, "example.md"
	}
	for name, content := range c.sections {
		if rel, ok := strings.CutPrefix(name, "file "); ok {
			if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, rel)), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, rel), []byte(content+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	path := filepath.Join(dir, file)
	doc, err := grammar.Parse(path, []byte(c.script+"\n"), mode)
	if want, ok := c.sections["parse-error"]; ok {
		if err == nil {
			t.Fatalf("want a parse error containing %q, the script parsed", want)
		}
		if !strings.Contains(err.Error(), strings.TrimSpace(want)) {
			t.Fatalf("parse error %q does not contain %q", err.Error(), strings.TrimSpace(want))
		}
		return
	}
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := interp.Run(ctx, doc, interp.Options{Dir: dir, Parse: grammar.Parse, ParseTemplate: grammar.ParseTemplate})
	if want, ok := c.sections["error"]; ok {
		if err == nil {
			t.Fatalf("want error containing %q, run succeeded with document %q", want, res.Document)
		}
		if !strings.Contains(err.Error(), strings.TrimSpace(want)) {
			t.Fatalf("error %q does not contain %q", err.Error(), strings.TrimSpace(want))
		}
	} else if err != nil {
		t.Fatalf("run: %v", err)
	}
	if want, ok := c.sections["doc"]; ok {
		if d := cmp.Diff(strings.TrimSpace(want), strings.TrimSpace(res.Document)); d != "" {
			t.Errorf("document (-want +got):\n%s", d)
		}
	}
	if want, ok := c.sections["stderr"]; ok {
		if d := cmp.Diff(strings.TrimSpace(want), strings.TrimSpace(res.Stderr)); d != "" {
			t.Errorf("stderr (-want +got):\n%s", d)
		}
	}
}
