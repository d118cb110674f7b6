package agent_test

import (
	"path/filepath"
	"testing"

	"github.com/guardrun/guardrun/agent"
)

// DefaultStateDir resolves $XDG_STATE_HOME through internal/xdgdir: an
// absolute value is used, a relative or empty one is ignored (XDG spec)
// for ~/.local/state, never the agent's working directory.
func TestDefaultStateDirXDG(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("USERPROFILE", home)
	abs := filepath.Join(t.TempDir(), "state")
	def := filepath.Join(home, ".local", "state", "guardrun", "sessions")
	for _, c := range []struct{ env, want string }{
		{abs, filepath.Join(abs, "guardrun", "sessions")},
		{"", def},
		{"state", def},
		{"./.local/state", def},
	} {
		t.Setenv("XDG_STATE_HOME", c.env)
		got, err := agent.DefaultStateDir()
		if err != nil || got != c.want {
			t.Errorf("XDG_STATE_HOME=%q: %q, %v; want %q", c.env, got, err, c.want)
		}
	}
	t.Setenv("XDG_STATE_HOME", "state")
	t.Setenv("HOME", "")
	t.Setenv("USERPROFILE", "")
	if got, err := agent.DefaultStateDir(); err == nil {
		t.Errorf("relative XDG_STATE_HOME and no HOME: %q, want an error", got)
	}
}
