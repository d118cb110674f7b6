package hook

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDiagnoseChangedPolicy: a changed policy's denial says when the
// changed text does not compile, and adds nothing when it does or when
// the error is of another kind.
func TestDiagnoseChangedPolicy(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "policy.guard")
	if err := os.WriteFile(bad, []byte("guard @g before op:cmd = when [\n  * => allow\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	good := filepath.Join(dir, "good.guard")
	if err := os.WriteFile(good, []byte("guard @g before op:cmd = when [\n  * => allow\n]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := diagnose(&ChangedError{File: bad, msg: "changed"}); !strings.Contains(got, "does not compile") || !strings.Contains(got, "policy.guard:") {
		t.Errorf("broken changed text: %q", got)
	}
	if got := diagnose(&ChangedError{File: good, msg: "changed"}); got != "" {
		t.Errorf("compiling changed text: %q", got)
	}
	if got := diagnose(errors.New("other")); got != "" {
		t.Errorf("other error: %q", got)
	}
}
