package rules_test

import (
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/guardrun/guardrun/policytest"
	"github.com/guardrun/guardrun/rules"
)

// installed writes the rules and their event tests into a fresh folder,
// as guardrun init does, and returns it with the number of tests.
func installed(t *testing.T) (string, int) {
	t.Helper()
	dir := t.TempDir()
	names, _ := fs.Glob(rules.FS, "*.guard")
	for _, n := range names {
		b, _ := rules.FS.ReadFile(n)
		if err := os.WriteFile(filepath.Join(dir, n), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	files, cases, err := rules.TestFiles()
	if err != nil {
		t.Fatal(err)
	}
	for p, b := range files {
		p = filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir, cases
}

// TestFixturesAsEventTests: every fixture of testdata/*.json, written as
// the event tests guardrun init installs, passes under guardrun test's
// runner; only cases the format cannot state are left out, and they are
// named in the file.
func TestFixturesAsEventTests(t *testing.T) {
	dir, cases := installed(t)
	all, skipped, wantSkipped := 0, 0, 0
	jsons, _ := filepath.Glob("testdata/*.json")
	for _, j := range jsons {
		b, err := os.ReadFile(j)
		if err != nil {
			t.Fatal(err)
		}
		var fx struct{ Cases []json.RawMessage }
		if err := json.Unmarshal(b, &fx); err != nil {
			t.Fatal(err)
		}
		all += len(fx.Cases)
		for _, c := range fx.Cases {
			if strings.Contains(string(c), "$RULES") || strings.Contains(string(c), `"stop_active"`) {
				wantSkipped++
			}
		}
		rule := strings.TrimSuffix(filepath.Base(j), ".json")
		mld, err := os.ReadFile(filepath.Join(dir, rule+".test.mld"))
		if err != nil {
			t.Fatal(err)
		}
		skipped += strings.Count(string(mld), ">> not stated here: ")
	}
	if cases+skipped != all || skipped != wantSkipped {
		t.Fatalf("%d tests written, %d left out (want %d), of %d fixture cases", cases, skipped, wantSkipped, all)
	}
	rs, err := policytest.Run(context.Background(), []string{dir}, policytest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != cases {
		t.Fatalf("guardrun test ran %d tests, want %d", len(rs), cases)
	}
	for _, r := range rs {
		if !r.Pass {
			t.Errorf("%s (%s:%d): %s", r.Name, r.File, r.Line, strings.Join(r.Failures, "\n"))
		}
	}
}
