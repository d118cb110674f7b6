package interp_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/guardrun/guardrun/ast"
	"github.com/guardrun/guardrun/grammar"
	"github.com/guardrun/guardrun/interp"
)

// runWithFiles runs script as example.mld in a directory holding files.
func runWithFiles(t *testing.T, script string, files map[string]string) (*interp.Result, error) {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(dir, "example.mld")
	doc, err := grammar.Parse(path, []byte(script), ast.Strict)
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	return interp.Run(context.Background(), doc, interp.Options{Dir: dir, Parse: grammar.Parse})
}

const denyShows = "guard @quiet before op:show = when [\n  * => deny \"nothing is shown\"\n]\n"

// guards.except turns off a guard of the policy file, imported or its
// own, for every operation after the policy is declared.
func TestGuardsExceptTurnsGuardsOff(t *testing.T) {
	_, err := runWithFiles(t, denyShows+"show \"hi\"\n", nil)
	if err == nil || !strings.Contains(err.Error(), "nothing is shown") {
		t.Fatalf("without the opt-in: %v", err)
	}
	res, err := runWithFiles(t, denyShows+"policy @optIn = { guards: { except: ['@quiet'] } }\nshow \"hi\"\n", nil)
	if err != nil || strings.TrimSpace(res.Document) != "hi" {
		t.Fatalf("with the opt-in: %v %q", err, res)
	}
	res, err = runWithFiles(t, "import guards from \"./mod.guard\"\npolicy @optIn = { guards: { except: ['@quiet'] } }\nshow \"hi\"\n",
		map[string]string{"mod.guard": denyShows})
	if err != nil || strings.TrimSpace(res.Document) != "hi" {
		t.Fatalf("an imported guard: %v %q", err, res)
	}
	// Another guard of the file still decides.
	_, err = runWithFiles(t, denyShows+"guard @loud before op:show = when [\n  * => deny \"still not\"\n]\npolicy @optIn = { guards: { except: ['@quiet'] } }\nshow \"hi\"\n", nil)
	if err == nil || !strings.Contains(err.Error(), "still not") {
		t.Fatalf("the other guard: %v", err)
	}
}

func TestGuardsExceptMistakes(t *testing.T) {
	tests := []struct {
		name, script string
		files        map[string]string
		line, col    int
		msg, hint    string
	}{
		{"misspelt", denyShows + "policy @optIn = { guards: { except: ['@qiet'] } }\n", nil, 4, 38, "guards.except names @qiet, which is no guard of this policy", "did you mean '@quiet'?"},
		{"declared after", "policy @optIn = { guards: { except: ['@quiet'] } }\n" + denyShows, nil, 1, 38, "no guard of this policy", "above this policy"},
		{"privileged", "guard privileged @keep before op:show = when [\n  * => allow\n]\npolicy @optIn = { guards: { except: ['@keep'] } }\n", nil, 4, 38, "a privileged guard", "survives every override"},
		{"in a module", "import guards from \"./mod.guard\"\n", map[string]string{"mod.guard": denyShows + "policy @optIn = { guards: { except: ['@quiet'] } }\n"}, 4, 38, "not of a module it imports", "in the policy file"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := runWithFiles(t, tc.script, tc.files)
			var e *interp.Error
			if !errors.As(err, &e) {
				t.Fatalf("want an interp.Error, got %v", err)
			}
			// An error inside an imported module is reported at the
			// import, with the module's error beneath it.
			for inner := (*interp.Error)(nil); errors.As(e.Err, &inner); e = inner {
			}
			if e.Kind != interp.KindPolicyConfig || e.Pos.Line != tc.line || e.Pos.Col != tc.col ||
				!strings.Contains(e.Message, tc.msg) || !strings.Contains(e.Hint, tc.hint) {
				t.Fatalf("got %s %v %q hint %q; want %d:%d %q hint %q", e.Kind, e.Pos, e.Message, e.Hint, tc.line, tc.col, tc.msg, tc.hint)
			}
		})
	}
}
