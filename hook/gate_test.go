package hook

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/guardrun/guardrun"
	"github.com/stretchr/testify/require"
)

// TestGateRefusesSwapAfterCheck (trust-unpinned-load, the race): a file
// swapped between the trust check and the load is refused by the load
// itself — the bytes the engine parses are hashed there — so no swap
// timing wins; a pinned module removed in between is reported after the
// load; a module no pin names is refused.
func TestGateRefusesSwapAfterCheck(t *testing.T) {
	ws := t.TempDir()
	dir := filepath.Join(ws, ".guardrun")
	pol := filepath.Join(dir, "policy.guard")
	mod := filepath.Join(dir, "mod.guard")
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "team", "core"), 0o700))
	require.NoError(t, os.WriteFile(pol, []byte("import guards from \"./mod.guard\"\nimport { @core } from \"./team\"\n"), 0o600))
	require.NoError(t, os.WriteFile(mod, []byte("var @m = 1\n"), 0o600))
	base := filepath.Join(dir, "team", "core", "index.mld")
	require.NoError(t, os.WriteFile(base, []byte("var @x = 1\nexport { @x }\n"), 0o600))
	extra := filepath.Join(dir, "team", "extra", "index.mld")
	require.NoError(t, os.MkdirAll(filepath.Dir(extra), 0o700))
	require.NoError(t, os.WriteFile(extra, []byte("guard @g before op:cmd = when [\n  * => deny \"no\"\n]\n"), 0o600))
	store := &TrustStore{Path: filepath.Join(t.TempDir(), "trust.json")}
	_, _, err := store.Trust(pol)
	require.NoError(t, err)
	defer guardrun.SetParseCache(nil)
	load := func(a *Approved) (*Gate, error) {
		g := NewGate(nil, a)
		guardrun.SetParseCache(g)
		prg, err := guardrun.Compile(a.File, a.Source)
		if err != nil {
			return g, err
		}
		m, err := prg.Load(context.Background(), guardrun.WithDir(ws))
		if err == nil {
			m.Close()
		}
		return g, err
	}

	a, err := store.Verify(pol, false)
	require.NoError(t, err)
	g, err := load(a)
	require.NoError(t, err)
	require.NoError(t, g.Unloaded())

	// The module is swapped after the check, before the load.
	pwned := filepath.Join(ws, "PWNED")
	a, err = store.Verify(pol, false)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(mod, []byte("run cmd { touch "+pwned+" }\n"), 0o600))
	_, err = load(a)
	require.Error(t, err)
	require.Contains(t, err.Error(), "module "+mod+" imported by workspace policy "+pol+" is new or changed")
	require.NoFileExists(t, pwned)
	require.NoError(t, os.WriteFile(mod, []byte("var @m = 1\n"), 0o600))

	// The policy's own bytes: only the pinned ones load.
	_, err = load(&Approved{File: pol, Source: []byte("run cmd { touch " + pwned + " }\n"), Modules: a.Modules})
	require.Error(t, err)
	require.Contains(t, err.Error(), "changed while it was being loaded")
	require.NoFileExists(t, pwned)

	// A module of the imported directory removed after the check.
	a, err = store.Verify(pol, false)
	require.NoError(t, err)
	require.NoError(t, os.RemoveAll(filepath.Dir(extra)))
	g, err = load(a)
	require.NoError(t, err)
	require.ErrorContains(t, g.Unloaded(), "module "+extra+", pinned for workspace policy "+pol+", was not loaded")

	// A module in the directory that no pin names.
	evil := filepath.Join(dir, "team", "evil", "index.mld")
	require.NoError(t, os.MkdirAll(filepath.Dir(evil), 0o700))
	require.NoError(t, os.WriteFile(evil, []byte("run cmd { touch "+pwned+" }\n"), 0o600))
	_, err = load(a)
	require.Error(t, err)
	require.True(t, strings.Contains(err.Error(), "module "+evil+" is not pinned"), err.Error())
	require.NoFileExists(t, pwned)
}

// TestFingerprintPinsWhatTheEngineLoads: '@'-spelled imports, directory
// listings and their index.mld modules, and nested imports are pinned.
func TestFingerprintPinsWhatTheEngineLoads(t *testing.T) {
	dir := t.TempDir()
	pol := filepath.Join(dir, "policy.guard")
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "team", "core"), 0o700))
	require.NoError(t, os.WriteFile(pol, []byte("import guards from '@team.guard'\nimport { @core } from \"./team\"\n"), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "@team.guard"), []byte("import guards from \"./nested.guard\"\n"), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "nested.guard"), []byte("var @n = 1\n"), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "team", "core", "index.mld"), []byte("var @x = 1\n"), 0o600))
	pin, err := Fingerprint(pol)
	require.NoError(t, err)
	for _, p := range []string{"@team.guard", "nested.guard", "team/core/index.mld"} {
		h := pin.Imports[filepath.Join(dir, filepath.FromSlash(p))]
		require.Len(t, h, 64, "%s pinned as %q", p, h)
	}
	require.True(t, strings.HasPrefix(pin.Imports[filepath.Join(dir, "team")], dirPrefix), pin.Imports)
}
