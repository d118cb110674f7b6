package guardrun

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/guardrun/guardrun/ast"
)

// refuser is a parse cache that refuses one source (SourceChecker) and
// records every source it was asked about.
type refuser struct {
	bad  string
	seen []string
}

func (r *refuser) CheckSource(file string, src []byte) error {
	r.seen = append(r.seen, file)
	if strings.Contains(string(src), r.bad) {
		return errors.New("refused " + file)
	}
	return nil
}
func (r *refuser) Load(string, []byte, ast.Mode) *ast.Document   { return nil }
func (r *refuser) Store(string, []byte, ast.Mode, *ast.Document) {}

// TestSourceCheckerSeesWhatRuns: a SourceChecker parse cache is asked
// about the script of Compile and each imported module, with the bytes
// that then run, and its error refuses them before they run.
func TestSourceCheckerSeesWhatRuns(t *testing.T) {
	dir := t.TempDir()
	pwned := filepath.Join(dir, "PWNED")
	if err := os.WriteFile(filepath.Join(dir, "mod.guard"), []byte("run cmd { touch "+pwned+" }\nvar @m = 1\nexport { @m }\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := &refuser{bad: "touch"}
	SetParseCache(r)
	defer SetParseCache(nil)
	main := filepath.Join(dir, "policy.guard")
	prg, err := Compile(main, []byte("import { @m } from \"./mod.guard\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := prg.Load(context.Background(), WithDir(dir))
	if err == nil {
		m.Close()
		t.Fatal("the refused module loaded")
	}
	if !strings.Contains(err.Error(), "refused "+filepath.Join(dir, "mod.guard")) {
		t.Errorf("error %v", err)
	}
	if _, err := os.Stat(pwned); err == nil {
		t.Error("the refused module ran")
	}
	if _, err := Compile(main, []byte("run cmd { touch "+pwned+" }\n")); err == nil || !strings.Contains(err.Error(), "refused "+main) {
		t.Errorf("Compile of a refused source: %v", err)
	}
	if len(r.seen) != 3 {
		t.Errorf("checked %q", r.seen)
	}
}
