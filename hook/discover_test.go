package hook

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestDiscoverConfinesEachPolicy: with a user and a workspace policy, each
// is confined to its own tree (the user's config directory, the
// workspace), never to a directory holding both, which could be "/".
func TestDiscoverConfinesEachPolicy(t *testing.T) {
	cfg, ws := t.TempDir(), t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", cfg)
	user := filepath.Join(cfg, "guardrun", "policy.guard")
	require.NoError(t, os.MkdirAll(filepath.Dir(user), 0o700))
	require.NoError(t, os.WriteFile(user, []byte("var @u = 1\n"), 0o600))
	wsPolicy := filepath.Join(ws, WorkspacePolicy)
	require.NoError(t, os.MkdirAll(filepath.Dir(wsPolicy), 0o700))
	require.NoError(t, os.WriteFile(wsPolicy, []byte("var @w = 1\n"), 0o600))
	require.NoError(t, os.Mkdir(filepath.Join(ws, "sub"), 0o700))

	trust := &TrustStore{Path: filepath.Join(t.TempDir(), "trust.json")}
	_, _, err := trust.Trust(wsPolicy)
	require.NoError(t, err)
	_, _, err = trust.TrustUser()
	require.NoError(t, err)

	p, err := Discover(filepath.Join(ws, "sub"), "", trust)
	require.NoError(t, err)
	require.Equal(t, []string{user, wsPolicy}, p.Files)
	require.Equal(t, []string{filepath.Dir(user), ws}, p.Dirs)
}
