package hook

import (
	"path/filepath"
	"testing"

	"github.com/guardrun/guardrun/agent"
	"github.com/stretchr/testify/require"
)

// The hook, the agent engine and the interpreter resolve guardrun's
// directories alike (internal/xdgdir): a relative XDG variable is
// ignored, as the XDG spec says, in favour of the default under $HOME.
func TestXDGDirsAgree(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	for _, v := range []string{"XDG_STATE_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME"} {
		t.Setenv(v, "relative/"+v)
	}
	state, err := StateDir()
	require.NoError(t, err)
	require.Equal(t, filepath.Join(home, ".local", "state", "guardrun"), state)
	sessions, err := agent.DefaultStateDir()
	require.NoError(t, err)
	require.Equal(t, filepath.Join(state, "sessions"), sessions)
	pol, err := UserPolicy()
	require.NoError(t, err)
	require.Equal(t, filepath.Join(home, ".config", "guardrun", "policy.guard"), pol)
	ts, err := DefaultTrustStore()
	require.NoError(t, err)
	require.Equal(t, filepath.Join(home, ".local", "share", "guardrun", "trust.json"), ts.Path)

	abs := t.TempDir()
	t.Setenv("XDG_STATE_HOME", abs+"/")
	state, err = StateDir()
	require.NoError(t, err)
	require.Equal(t, filepath.Join(abs, "guardrun"), state)
}
