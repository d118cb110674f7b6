package xdgdir

import (
	"fmt"
	"os"
	"path/filepath"
)

// Kind names one of the XDG base directories guardrun uses.
type Kind int

// The base directories, each with its variable and its default under
// $HOME.
const (
	ConfigHome Kind = iota // $XDG_CONFIG_HOME, ~/.config
	StateHome              // $XDG_STATE_HOME, ~/.local/state
	CacheHome              // $XDG_CACHE_HOME, ~/.cache
	DataHome               // $XDG_DATA_HOME, ~/.local/share
)

// Kinds is every Kind, in declaration order.
var Kinds = [...]Kind{ConfigHome, StateHome, CacheHome, DataHome}

// Name is guardrun's directory name inside each base directory.
const Name = "guardrun"

var kinds = [...]struct{ env, def, what string }{
	ConfigHome: {"XDG_CONFIG_HOME", ".config", "config"},
	StateHome:  {"XDG_STATE_HOME", ".local/state", "state"},
	CacheHome:  {"XDG_CACHE_HOME", ".cache", "cache"},
	DataHome:   {"XDG_DATA_HOME", ".local/share", "data"},
}

// Env is the kind's environment variable, e.g. "XDG_STATE_HOME".
func (k Kind) Env() string { return kinds[k].env }

// Default is the kind's default directory relative to $HOME, with
// slashes, e.g. ".local/state".
func (k Kind) Default() string { return kinds[k].def }

// String is the kind as a word: "config", "state", "cache" or "data".
func (k Kind) String() string {
	if k < 0 || int(k) >= len(kinds) {
		return fmt.Sprintf("xdgdir.Kind(%d)", int(k))
	}
	return kinds[k].what
}

// Config is guardrun's config directory: $XDG_CONFIG_HOME/guardrun, or
// ~/.config/guardrun.
func Config() (string, error) { return Dir(ConfigHome) }

// State is guardrun's state directory: $XDG_STATE_HOME/guardrun, or
// ~/.local/state/guardrun.
func State() (string, error) { return Dir(StateHome) }

// Cache is guardrun's cache directory: $XDG_CACHE_HOME/guardrun, or
// ~/.cache/guardrun.
func Cache() (string, error) { return Dir(CacheHome) }

// Data is guardrun's data directory: $XDG_DATA_HOME/guardrun, or
// ~/.local/share/guardrun.
func Data() (string, error) { return Dir(DataHome) }

// Dir is guardrun's directory of kind k in this process's environment.
func Dir(k Kind) (string, error) {
	base, err := Base(k)
	if err != nil {
		return "", err
	}
	return filepath.Join(base, Name), nil
}

// Base is the base directory of kind k (the parent of guardrun's) in
// this process's environment: the variable when it is absolute, else
// the default under the user's home directory.
func Base(k Kind) (string, error) {
	if v := os.Getenv(k.Env()); filepath.IsAbs(v) {
		return filepath.Clean(v), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("no %s directory: %s is unset or relative, and %v", k, k.Env(), err)
	}
	return BaseIn(k, os.Getenv, home)
}

// BaseIn is Base with the environment read through getenv and the home
// directory given, for callers that resolve another environment than
// their own (and for tests).
func BaseIn(k Kind, getenv func(string) string, home string) (string, error) {
	if v := getenv(k.Env()); filepath.IsAbs(v) {
		return filepath.Clean(v), nil
	}
	if home == "" || !filepath.IsAbs(home) {
		return "", fmt.Errorf("no %s directory: %s is unset or relative, and the home directory %q is not an absolute path", k, k.Env(), home)
	}
	return filepath.Join(home, filepath.FromSlash(k.Default())), nil
}

// DirIn is Dir with the environment read through getenv and the home
// directory given.
func DirIn(k Kind, getenv func(string) string, home string) (string, error) {
	base, err := BaseIn(k, getenv, home)
	if err != nil {
		return "", err
	}
	return filepath.Join(base, Name), nil
}
