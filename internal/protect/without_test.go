package protect

import (
	"path/filepath"
	"testing"
)

// Without drops the named roots only: their files become writable by any
// spelling (links, identity, mentions), the other roots stay covered.
func TestWithout(t *testing.T) {
	f := newFixture(t)
	settings := filepath.Join(f.home, ".claude/settings.json")
	root, ok := f.set.Covers(settings, f.ws)
	if !ok {
		t.Fatalf("%s is not covered", settings)
	}
	s := f.set.Without(root)
	if r, ok := s.Covers(settings, f.ws); ok {
		t.Errorf("%s still covered (by %s) after Without(%s)", settings, r, root)
	}
	if r, ok := s.Mentions("open('" + settings + "', 'w')"); ok && r == root {
		t.Errorf("Mentions still names %s", root)
	}
	cfg := filepath.Join(f.home, ".config/guardrun/policy.guard")
	if _, ok := s.Covers(cfg, f.ws); !ok {
		t.Errorf("%s is no longer covered", cfg)
	}
	if _, ok := s.Covers(filepath.Join(f.ws, "src/cfg/policy.guard"), f.ws); !ok {
		t.Errorf("a link to guardrun's configuration is no longer covered")
	}
	if _, ok := f.set.Covers(settings, f.ws); !ok {
		t.Errorf("Without changed the set it was called on")
	}
	if got := f.set.Without(); len(got.roots) != len(f.set.roots) {
		t.Errorf("Without() dropped roots")
	}
}
