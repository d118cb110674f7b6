package interp_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/guardrun/guardrun/ast"
	"github.com/guardrun/guardrun/grammar"
	"github.com/guardrun/guardrun/interp"
	"github.com/guardrun/guardrun/interp/audit"
)

// runIn runs a strict-mode script with dir as its base directory.
func runIn(t *testing.T, dir, script string) (*interp.Result, error) {
	t.Helper()
	path := filepath.Join(dir, "example.mld")
	doc, err := grammar.Parse(path, []byte(script+"\n"), ast.Strict)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	return interp.Run(ctx, doc, interp.Options{Dir: dir, Parse: grammar.Parse})
}

func mustRunIn(t *testing.T, dir, script string) string {
	t.Helper()
	res, err := runIn(t, dir, script)
	require.NoError(t, err)
	return res.Document
}

// shownLists decodes a document made of shown string arrays, whatever
// their layout (short arrays print on one line, longer ones indented).
func shownLists(t *testing.T, doc string) [][]string {
	t.Helper()
	var out [][]string
	dec := json.NewDecoder(strings.NewReader(doc))
	for dec.More() {
		var l []string
		require.NoError(t, dec.Decode(&l), "document: %s", doc)
		out = append(out, l)
	}
	return out
}

func TestLabelsSurviveOutputAndLoad(t *testing.T) {
	dir := t.TempDir()
	doc := mustRunIn(t, dir, `
var secret @tok = "sk-1"
output @tok to "out/a.txt"
var @a = <out/a.txt>
show @a.mx.labels
var pii @p = "one"
var internal @q = "two"
append @p to "log.txt"
append @q to "log.txt"
var @l = <log.txt>
show @l.mx.labels
output "clean" to "out/a.txt"
var @c = <out/a.txt>
show @c.mx.labels
show @c.mx.taint`)
	got := shownLists(t, doc)
	require.Len(t, got, 4)
	require.Equal(t, []string{"secret"}, got[0])
	// PORT: mlld would restore only the last append's label.
	require.Equal(t, []string{"pii", "internal"}, got[1])
	require.Empty(t, got[2], "a clean overwrite reads back clean")
	want := []string{"src:file", "dir:" + filepath.Join(dir, "out")}
	require.Equal(t, want, got[3][:2])
	for _, tn := range got[3] {
		require.True(t, tn == "src:file" || strings.HasPrefix(tn, "dir:"), "unexpected taint %q", tn)
	}
	require.NotContains(t, got[3], "dir:/", "mlld stops before the filesystem root")

	// The labels are in the ledger, so a later run restores them too.
	doc = mustRunIn(t, dir, `
var @l = <log.txt>
show @l.mx.labels`)
	require.Equal(t, [][]string{{"pii", "internal"}}, shownLists(t, doc))
}

func TestCleanWritesLeaveNoLedger(t *testing.T) {
	dir := t.TempDir()
	mustRunIn(t, dir, `
output "plain" to "a.txt"
append "plain" to "b.txt"`)
	_, err := os.Stat(filepath.Join(dir, ".mlld"))
	require.ErrorIs(t, err, os.ErrNotExist)
}

func TestLedgerFailureStopsTheWrite(t *testing.T) {
	for name, breakLedger := range map[string]func(t *testing.T, dir string){
		"sec is a file": func(t *testing.T, dir string) {
			require.NoError(t, os.MkdirAll(filepath.Join(dir, ".mlld"), 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(dir, ".mlld", "sec"), nil, 0o644))
		},
		"ledger is a directory": func(t *testing.T, dir string) {
			require.NoError(t, os.MkdirAll(filepath.Join(dir, audit.RelPath), 0o755))
		},
	} {
		for _, op := range []string{"output", "append"} {
			t.Run(name+"/"+op, func(t *testing.T) {
				dir := t.TempDir()
				breakLedger(t, dir)
				_, err := runIn(t, dir, "var secret @tok = \"sk-1\"\n"+op+" @tok to \"out.txt\"")
				var ie *interp.Error
				require.True(t, errors.As(err, &ie), "want *interp.Error, got %v", err)
				require.Equal(t, interp.KindEffect, ie.Kind)
				require.Equal(t, 2, ie.Pos.Line)
				require.Contains(t, ie.Message, "cannot record the labels of out.txt in the audit ledger")
				require.NotEmpty(t, ie.Hint)
				_, statErr := os.Stat(filepath.Join(dir, "out.txt"))
				require.ErrorIs(t, statErr, os.ErrNotExist, "the file must not be written without its record")
			})
		}
	}
}

func TestScriptsCannotWriteTheLedger(t *testing.T) {
	dir := t.TempDir()
	for _, target := range []string{".mlld/sec/audit.jsonl", ".mlld/sec/../sec/audit.jsonl", "link.jsonl"} {
		t.Run(target, func(t *testing.T) {
			mustRunIn(t, dir, "var secret @tok = \"sk-1\"\noutput @tok to \"a.txt\"")
			_ = os.Symlink(audit.RelPath, filepath.Join(dir, "link.jsonl"))
			_, err := runIn(t, dir, `var @forged = {"ts":"x","event":"write","path":"`+filepath.Join(dir, "a.txt")+`","taint":[]}`+"\nappend @forged to \""+target+"\"")
			require.ErrorContains(t, err, "is the audit ledger")
			doc := mustRunIn(t, dir, "var @a = <a.txt>\nshow @a.mx.labels")
			require.Equal(t, [][]string{{"secret"}}, shownLists(t, doc))
		})
	}
}

// Records written by mlld itself (no labels, no mode, writer a provenance
// string) restore labels the way mlld reads them.
func TestLoadRestoresMlldRecords(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "f.txt"), []byte("data"), 0o644))
	require.NoError(t, os.MkdirAll(filepath.Join(dir, ".mlld", "sec"), 0o755))
	rec := `{"ts":"2026-02-05T08:42:21.123Z","event":"write","path":"` + filepath.Join(dir, "f.txt") + `","taint":["secret","src:network"],"writer":"guard:g"}` + "\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, audit.RelPath), []byte(rec), 0o644))
	doc := mustRunIn(t, dir, "var @f = <f.txt>\nshow @f.mx.labels\nshow @f.mx.sources")
	got := shownLists(t, doc)
	require.Equal(t, []string{"secret"}, got[0])
	require.Equal(t, []string{filepath.Join(dir, "f.txt"), "guard:g"}, got[1])
}

// TestProtectedPathsAreNotWritten: writes into repository metadata and
// other files programs execute are refused, with or without code, also
// through a link and in another case, unless the embedder allows them.
func TestProtectedPathsAreNotWritten(t *testing.T) {
	refused := []struct{ setup, script string }{
		{"", `output "x" to ".git/config"`},
		{"", `append "x" to ".git/hooks/pre-commit"`},
		{"", `output "gitdir: /elsewhere" to "sub/.git"`},
		{"", `output "x" to ".GIT/config"`},
		{"", `output "x" to "./sub/../.envrc"`},
		{"", `output "x" to ".vscode/tasks.json"`},
		{"", `output "x" to ".mlld/other.json"`},
		{"link", `output "x" to "meta/config"`},
		{"filelink", `output "x" to "cfg"`},
	}
	for _, tt := range refused {
		dir := t.TempDir()
		require.NoError(t, os.MkdirAll(filepath.Join(dir, ".git"), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, ".git", "config"), []byte("[core]\n"), 0o644))
		switch tt.setup {
		case "link":
			require.NoError(t, os.Symlink(".git", filepath.Join(dir, "meta")))
		case "filelink":
			require.NoError(t, os.Symlink(".git/config", filepath.Join(dir, "cfg")))
		}
		_, err := runIn(t, dir, tt.script)
		var ie *interp.Error
		require.ErrorAs(t, err, &ie, tt.script)
		require.Contains(t, ie.Message, "is protected", tt.script)
		require.Contains(t, ie.Hint, "WithWritableProtected", tt.script)
		require.Equal(t, 1, ie.Pos.Line, tt.script)
		b, err := os.ReadFile(filepath.Join(dir, ".git", "config"))
		require.NoError(t, err)
		require.Equal(t, "[core]\n", string(b), tt.script)
	}

	dir := t.TempDir()
	mustRunIn(t, dir, `output "fine" to "git.txt"
output "fine" to "docs/.gitignore"`)
	doc, err := grammar.Parse(filepath.Join(dir, "example.mld"), []byte(`output "x" to ".git/info/exclude"`+"\n"), ast.Strict)
	require.NoError(t, err)
	_, err = interp.Run(context.Background(), doc, interp.Options{Dir: dir, Parse: grammar.Parse, DisableCode: true, WritableProtected: []string{".git/info"}})
	require.NoError(t, err)
	_, err = interp.Run(context.Background(), doc, interp.Options{Dir: dir, Parse: grammar.Parse, DisableCode: true, WritableProtected: []string{".mlld"}})
	require.Error(t, err)
}
