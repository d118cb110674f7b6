package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/guardrun/guardrun"
	"github.com/guardrun/guardrun/check"
	"github.com/guardrun/guardrun/format"
)

// shippedPolicies are the starter rules and the example scripts (not the
// policy test files, nor the examples that fail on purpose).
func shippedPolicies(t *testing.T) []string {
	var files []string
	for _, pat := range []string{"../../rules/*.guard", "../../examples/*.mld", "../../examples/*.md",
		"../../examples/policy-tests/*.guard", "../../examples/policy-tests/*.mld", "../../examples/policy-tests/cases/*/example.mld"} {
		m, err := filepath.Glob(pat)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range m {
			if !strings.HasSuffix(f, ".test.mld") {
				files = append(files, f)
			}
		}
	}
	if len(files) < 15 {
		t.Fatalf("found %d policies", len(files))
	}
	return files
}

// Every shipped policy passes check with no error, is formatted, and fmt
// is idempotent and keeps its syntax tree (issue 31).
func TestShippedPoliciesCheckAndFormat(t *testing.T) {
	for _, f := range shippedPolicies(t) {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		mode := format.ModeFor(f)
		fs, err := check.Source(f, src, mode)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, x := range fs {
			if x.Severity == check.Error {
				t.Errorf("%v", x)
			}
		}
		once, err := format.Source(f, src, mode)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if string(once.Text) != string(src) {
			t.Errorf("%s is not formatted (guardrun fmt -w %s)", f, f)
		}
		twice, err := format.Source(f, once.Text, mode)
		if err != nil || string(twice.Text) != string(once.Text) {
			t.Errorf("%s: fmt is not idempotent (%v)", f, err)
		}
		a, errA := guardrun.Compile(f, src, guardrun.WithMode(guardrun.ModeForName(f)))
		b, errB := guardrun.Compile(f, once.Text, guardrun.WithMode(guardrun.ModeForName(f)))
		if errA != nil || errB != nil || !format.SameTree(a.Document(), b.Document()) {
			t.Errorf("%s: fmt changed the meaning (%v, %v)", f, errA, errB)
		}
		if filepath.Ext(f) == ".guard" && guardrun.ModeForName(f) != guardrun.Strict {
			t.Errorf("%s read as prose", f)
		}
	}
}
