package hook

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/guardrun/guardrun/agent"
)

// The hook's decision log rotates past the size GUARDRUN_LOG_MAX_BYTES
// sets.
func TestOpenLogRotatesPastEnvSize(t *testing.T) {
	t.Setenv(LogMaxBytesEnv, "16")
	path := filepath.Join(t.TempDir(), "guardrun", "decisions.jsonl")
	for _, line := range []string{"first record line\n", "second\n"} {
		if err := appendLog(path, agent.Record{Session: line}); err != nil {
			t.Fatal(err)
		}
	}
	old, err := os.ReadFile(agent.RotatedLogPath(path))
	if err != nil {
		t.Fatalf("no rotated log: %v", err)
	}
	cur, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := ReadLog(bytes.NewReader(cur))
	if err != nil || len(recs) != 1 || recs[0].Session != "second\n" {
		t.Errorf("log after rotation: %q (%v)", cur, err)
	}
	if recs, err := ReadLog(bytes.NewReader(old)); err != nil || len(recs) != 1 || recs[0].Session != "first record line\n" {
		t.Errorf("rotated log: %q (%v)", old, err)
	}
}
