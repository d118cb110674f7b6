package protect

import (
	"os"
	"path/filepath"
	"testing"
)

// TestInsideLeavesAncestors: Inside covers a root and what is in it,
// not the directories above it, which Covers does cover.
func TestInsideLeavesAncestors(t *testing.T) {
	home := t.TempDir()
	ws := filepath.Join(home, "ws")
	if err := os.MkdirAll(filepath.Join(ws, ".guardrun"), 0o700); err != nil {
		t.Fatal(err)
	}
	s := ForAgent(func(string) string { return "" }, home, ws)
	for _, p := range []string{".", ws, filepath.Join(home, ".config")} {
		if _, ok := s.Covers(p, ws); !ok {
			t.Errorf("Covers(%q) = false, want true (it holds a root)", p)
		}
		if r, ok := s.Inside(p, ws); ok {
			t.Errorf("Inside(%q) = %q, want false", p, r)
		}
	}
	for _, p := range []string{".guardrun/policy.guard", "~/.config/guardrun/exfil.guard", filepath.Join(ws, ".claude", "settings.json")} {
		if _, ok := s.Inside(p, ws); !ok {
			t.Errorf("Inside(%q) = false, want true", p)
		}
	}
}
