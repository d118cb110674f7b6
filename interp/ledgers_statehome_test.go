package interp

import (
	"path/filepath"
	"strings"
	"testing"
)

// The private ledgers resolve $XDG_STATE_HOME through internal/xdgdir:
// an absolute value is used, a relative one is ignored (XDG spec) for
// ~/.local/state, and Options.StateDir wins over both.
func TestStateHomeXDG(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("USERPROFILE", home)
	base := t.TempDir()
	f := &files{base: base}
	key := baseKey(f.resolvedBase())

	abs := filepath.Join(t.TempDir(), "state")
	cases := []struct{ env, stateDir, want string }{
		{abs, "", filepath.Join(abs, "guardrun", "ledgers", key)},
		{"rel/state", "", filepath.Join(home, ".local", "state", "guardrun", "ledgers", key)},
		{"", "", filepath.Join(home, ".local", "state", "guardrun", "ledgers", key)},
		{"rel/state", abs, filepath.Join(abs, "guardrun", "ledgers", key)},
	}
	for _, c := range cases {
		t.Setenv("XDG_STATE_HOME", c.env)
		f.stateDir = c.stateDir
		got, err := f.stateHome()
		if err != nil || got != c.want {
			t.Errorf("XDG_STATE_HOME=%q StateDir=%q: %q, %v; want %q", c.env, c.stateDir, got, err, c.want)
		}
	}

	t.Setenv("XDG_STATE_HOME", "rel/state")
	t.Setenv("HOME", "")
	t.Setenv("USERPROFILE", "")
	f.stateDir = ""
	if got, err := f.stateHome(); err == nil || !strings.Contains(err.Error(), "XDG_STATE_HOME") {
		t.Errorf("no usable state directory: %q, %v; want an error naming XDG_STATE_HOME", got, err)
	}
}
