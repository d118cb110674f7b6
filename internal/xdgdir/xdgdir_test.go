package xdgdir_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/guardrun/guardrun/internal/xdgdir"
)

func TestDirIn(t *testing.T) {
	home := filepath.FromSlash("/home/u")
	cases := []struct {
		kind xdgdir.Kind
		env  string // the variable's value
		want string
	}{
		{xdgdir.ConfigHome, "", "/home/u/.config/guardrun"},
		{xdgdir.StateHome, "", "/home/u/.local/state/guardrun"},
		{xdgdir.CacheHome, "", "/home/u/.cache/guardrun"},
		{xdgdir.DataHome, "", "/home/u/.local/share/guardrun"},
		{xdgdir.StateHome, "/x/state", "/x/state/guardrun"},
		{xdgdir.StateHome, "/x//state/./", "/x/state/guardrun"},
		{xdgdir.ConfigHome, "/etc/cfg", "/etc/cfg/guardrun"},
		// Relative values are invalid (XDG spec) and ignored.
		{xdgdir.StateHome, "state", "/home/u/.local/state/guardrun"},
		{xdgdir.StateHome, "./state", "/home/u/.local/state/guardrun"},
		{xdgdir.DataHome, "~/share", "/home/u/.local/share/guardrun"},
		{xdgdir.CacheHome, "../c", "/home/u/.cache/guardrun"},
	}
	for _, c := range cases {
		getenv := func(k string) string {
			if k == c.kind.Env() {
				return filepath.FromSlash(c.env)
			}
			return "/wrong/" + k
		}
		got, err := xdgdir.DirIn(c.kind, getenv, home)
		if err != nil {
			t.Errorf("%s=%q: %v", c.kind.Env(), c.env, err)
			continue
		}
		if want := filepath.FromSlash(c.want); got != want {
			t.Errorf("%s=%q: got %q, want %q", c.kind.Env(), c.env, got, want)
		}
	}
}

func TestNoHome(t *testing.T) {
	none := func(string) string { return "" }
	for _, home := range []string{"", "home/u", "."} {
		for _, k := range xdgdir.Kinds {
			_, err := xdgdir.DirIn(k, none, home)
			if err == nil {
				t.Errorf("%s with home %q: no error", k, home)
				continue
			}
			if !strings.Contains(err.Error(), k.Env()) || !strings.Contains(err.Error(), "no "+k.String()+" directory") {
				t.Errorf("%s with home %q: error %q names neither the variable nor the kind", k, home, err)
			}
		}
	}
	// An absolute variable needs no home.
	abs := func(string) string { return filepath.FromSlash("/abs") }
	if got, err := xdgdir.BaseIn(xdgdir.StateHome, abs, ""); err != nil || got != filepath.FromSlash("/abs") {
		t.Errorf("absolute variable, no home: %q, %v", got, err)
	}
}

func TestProcessEnv(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("USERPROFILE", home) // os.UserHomeDir on windows
	state := filepath.Join(t.TempDir(), "st")
	t.Setenv("XDG_STATE_HOME", state)
	t.Setenv("XDG_CONFIG_HOME", "relative/cfg")
	t.Setenv("XDG_CACHE_HOME", "")
	t.Setenv("XDG_DATA_HOME", "")
	for _, c := range []struct {
		f    func() (string, error)
		want string
	}{
		{xdgdir.Config, filepath.Join(home, ".config", "guardrun")},
		{xdgdir.State, filepath.Join(state, "guardrun")},
		{xdgdir.Cache, filepath.Join(home, ".cache", "guardrun")},
		{xdgdir.Data, filepath.Join(home, ".local", "share", "guardrun")},
	} {
		got, err := c.f()
		if err != nil || got != c.want {
			t.Errorf("got %q, %v; want %q", got, err, c.want)
		}
	}
	if got, err := xdgdir.Base(xdgdir.StateHome); err != nil || got != state {
		t.Errorf("Base(StateHome) = %q, %v; want %q", got, err, state)
	}
}

func TestKindString(t *testing.T) {
	want := []string{"config", "state", "cache", "data"}
	for i, k := range xdgdir.Kinds {
		if k.String() != want[i] {
			t.Errorf("%d: %q", i, k.String())
		}
	}
	if s := xdgdir.Kind(9).String(); s != "xdgdir.Kind(9)" {
		t.Errorf("out of range: %q", s)
	}
}
