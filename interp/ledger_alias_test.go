package interp_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/guardrun/guardrun/ast"
	"github.com/guardrun/guardrun/grammar"
	"github.com/guardrun/guardrun/interp"
)

// runWith runs a strict-mode script with dir as its base directory, the
// private ledger under state, and code enabled unless noCode.
func runWith(t *testing.T, dir, state string, noCode bool, script string) string {
	t.Helper()
	doc, err := grammar.Parse(filepath.Join(dir, "example.mld"), []byte(script+"\n"), ast.Strict)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := interp.Run(ctx, doc, interp.Options{Dir: dir, StateDir: state, DisableCode: noCode, Parse: grammar.Parse})
	require.NoError(t, err)
	return res.Document
}

const writeSecret = "var secret @key = \"sk-live-42\"\noutput @key to \"k.txt\""

// A file keeps its labels whichever path reaches it: a directory link
// inside the base, a base directory reached through a link, a moved
// project, and the same content under another name (a case variant on a
// case-insensitive file system). All without code.
func TestLedgerSurvivesPathAliases(t *testing.T) {
	labels := func(t *testing.T, dir, state, file string) []string {
		t.Helper()
		doc := runWith(t, dir, state, true, "var @k = <"+file+">\nshow @k.mx.labels")
		return shownLists(t, doc)[0]
	}
	secret := []string{"secret"}

	t.Run("directory link inside the base", func(t *testing.T) {
		dir, state := t.TempDir(), t.TempDir()
		require.NoError(t, os.Symlink(".", filepath.Join(dir, "alias")))
		doc := runWith(t, dir, state, true, writeSecret+"\nvar @k = <alias/k.txt>\nshow @k.mx.labels")
		require.Equal(t, secret, shownLists(t, doc)[0])
	})
	t.Run("base reached through a link", func(t *testing.T) {
		dir, state := t.TempDir(), t.TempDir()
		link := dir + ".link"
		require.NoError(t, os.Symlink(dir, link))
		t.Cleanup(func() { os.Remove(link) })
		runWith(t, link, state, true, writeSecret)
		require.Equal(t, secret, labels(t, dir, state, "k.txt"))
		require.Equal(t, secret, labels(t, link, state, "k.txt"))
	})
	t.Run("moved project", func(t *testing.T) {
		parent, state := t.TempDir(), t.TempDir()
		dir := filepath.Join(parent, "a")
		require.NoError(t, os.Mkdir(dir, 0o755))
		runWith(t, dir, state, true, writeSecret)
		moved := filepath.Join(parent, "b")
		require.NoError(t, os.Rename(dir, moved))
		require.Equal(t, secret, labels(t, moved, state, "k.txt"))
	})
	t.Run("same content under another name", func(t *testing.T) {
		dir, state := t.TempDir(), t.TempDir()
		runWith(t, dir, state, true, writeSecret)
		b, err := os.ReadFile(filepath.Join(dir, "k.txt"))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, "K.TXT"), b, 0o644))
		require.Equal(t, secret, labels(t, dir, state, "K.TXT"))
	})
}

// A command given labelled data leaves records a later run honours; the
// private ledger lies outside the base directory, owner-only.
func TestCommandWritesAreRecordedAcrossRuns(t *testing.T) {
	dir, state := t.TempDir(), t.TempDir()
	runWith(t, dir, state, false, `var secret @key = "sk-live-42"
exe @save(v) = sh { printf %s "$v" > stash.txt }
var @r = @save(@key)`)
	doc := runWith(t, dir, state, false, "var @b = <stash.txt>\nshow @b.mx.labels\nvar @c = cmd { cat stash.txt }\nshow @c.mx.labels")
	require.Equal(t, [][]string{{"secret"}, {"secret"}}, shownLists(t, doc))

	matches, err := filepath.Glob(filepath.Join(state, "guardrun", "ledgers", "*", "audit.jsonl"))
	require.NoError(t, err)
	require.Len(t, matches, 1)
	st, err := os.Stat(matches[0])
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), st.Mode().Perm())
	st, err = os.Stat(filepath.Dir(matches[0]))
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o700), st.Mode().Perm())
}

// Scripts whose commands see no labels leave no ledger at all.
func TestUnlabelledCommandsLeaveNoLedger(t *testing.T) {
	dir, state := t.TempDir(), t.TempDir()
	doc := runWith(t, dir, state, false, "var @r = sh { echo hi > a.txt; cat a.txt }\nvar @a = <a.txt>\nshow @a.mx.labels\nshow @r.mx.labels")
	require.Equal(t, [][]string{{}, {}}, shownLists(t, doc))
	_, err := os.Stat(filepath.Join(state, "guardrun"))
	require.ErrorIs(t, err, os.ErrNotExist)
	_, err = os.Stat(filepath.Join(dir, ".mlld"))
	require.ErrorIs(t, err, os.ErrNotExist)
}
