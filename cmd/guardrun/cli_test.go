package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func runCLI(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = run(args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestUsageErrorsExit2(t *testing.T) {
	for _, args := range [][]string{
		{},
		{"a.md", "b.md"},
		{"--no-such-flag", "a.md"},
		{"conform"},
		{"conform", "/definitely/not/a/dir"},
	} {
		code, _, stderr := runCLI(args...)
		require.Equal(t, exitUsage, code, "args %q", args)
		require.Contains(t, stderr, "usage", "args %q", args)
	}
}

func TestMissingFileIsARenderedError(t *testing.T) {
	code, stdout, stderr := runCLI(filepath.Join(t.TempDir(), "nope.md"))
	require.Equal(t, exitFail, code)
	require.Empty(t, stdout)
	require.Contains(t, stderr, "nope.md: cannot read script")
	require.Contains(t, stderr, "hint: ")
}

func TestJSONOnFailure(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nope.md")
	code, stdout, _ := runCLI("--json", missing)
	require.Equal(t, exitFail, code)
	var got map[string]any
	require.NoError(t, json.Unmarshal([]byte(stdout), &got))
	require.Contains(t, got, "document")
	errObj, ok := got["error"].(map[string]any)
	require.True(t, ok, "error object present: %s", stdout)
	require.Equal(t, "IOError", errObj["name"])
	require.Equal(t, missing, errObj["file"])
	require.NotContains(t, errObj, "guardName", "empty guard fields are left out")
}

func TestFlagsAfterFile(t *testing.T) {
	code, stdout, _ := runCLI(filepath.Join(t.TempDir(), "nope.md"), "--json")
	require.Equal(t, exitFail, code)
	require.True(t, strings.HasPrefix(stdout, "{"), stdout)
}

func TestRunScript(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "hello.md")
	require.NoError(t, os.WriteFile(file, []byte("/var @name = \"world\"\n/show `Hello, @name!`\n"), 0o644))
	code, stdout, stderr := runCLI(file)
	require.Equal(t, exitOK, code, stderr)
	require.Equal(t, "Hello, world!\n", stdout)

	code, stdout, _ = runCLI("--json", file)
	require.Equal(t, exitOK, code)
	var got map[string]any
	require.NoError(t, json.Unmarshal([]byte(stdout), &got))
	require.NotContains(t, got, "error")
	require.Equal(t, "Hello, world!", strings.TrimSpace(got["document"].(string)))
}

func TestRunScriptErrorShowsCaret(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "bad.md")
	require.NoError(t, os.WriteFile(file, []byte("text\n/show @missing\n"), 0o644))
	code, _, stderr := runCLI(file)
	require.Equal(t, exitFail, code)
	require.Contains(t, stderr, file+":2:")
	require.Contains(t, stderr, "/show @missing\n")
	require.Contains(t, stderr, "^")
}

// An error case whose script cannot succeed passes with any implementation,
// so this exercises the conform plumbing without depending on the
// interpreter's progress.
func TestConform(t *testing.T) {
	root := t.TempDir()
	cases := filepath.Join(root, "cases")
	require.NoError(t, os.MkdirAll(filepath.Join(cases, "a", "broken"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(cases, "a", "broken", "example.md"), []byte("/show @nope(((\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(cases, "a", "broken", "error.md"), []byte("anything"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(root, "manifest.tsv"),
		[]byte("path\ttags\tkind\tset\tscripts\nnot-there\tcore\toutput\tpublic\texample.md\na/broken\tcore,x\terror\tpublic\texample.md\n"), 0o644))

	code, stdout, _ := runCLI("conform", cases)
	require.Equal(t, exitOK, code)
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	require.True(t, strings.HasPrefix(lines[0], "FAIL not-there: "), lines[0])
	require.Equal(t, []string{"PASS a/broken", "core: 1/2", "x: 1/1", "1 passed, 1 failed"}, lines[1:])

	code, _, stderr := runCLI("conform", "--fail-under", "60", cases)
	require.Equal(t, exitFail, code)
	require.Contains(t, stderr, "50.0%")

	code, stdout, _ = runCLI("conform", "--filter", "broken", "--fail-under", "100", cases)
	require.Equal(t, exitOK, code)
	require.Equal(t, "PASS a/broken\ncore: 1/1\nx: 1/1\n1 passed, 0 failed\n", stdout)

	// Without a manifest, discovery finds the one real case.
	require.NoError(t, os.Remove(filepath.Join(root, "manifest.tsv")))
	code, stdout, _ = runCLI("conform", "-v", cases)
	require.Equal(t, exitOK, code)
	require.Equal(t, "PASS a/broken\ncore: 1/1\n1 passed, 0 failed\n", stdout)
}

// The document and stdout-only effects share the terminal in the order the
// script produced them.
func TestDocumentAndStdoutStreamInOrder(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "order.md")
	require.NoError(t, os.WriteFile(script, []byte("/show \"one\"\n/output \"two\" to stdout\n/show \"three\"\n/log \"note\"\n"), 0o644))
	code, stdout, stderr := runCLI(script)
	require.Equal(t, exitOK, code, stderr)
	require.Equal(t, "one\ntwo\n\nthree\n", stdout)
	require.Equal(t, "note\n", stderr)
}

// --dir sets the base directory: file access outside it is refused.
func TestDirConfinesFileAccess(t *testing.T) {
	base := t.TempDir()
	sub := filepath.Join(base, "scripts")
	require.NoError(t, os.Mkdir(sub, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(base, "data.txt"), []byte("shared"), 0o644))
	script := filepath.Join(sub, "read.mld")
	require.NoError(t, os.WriteFile(script, []byte("var @d = <../data.txt>\nshow @d\n"), 0o644))

	code, _, stderr := runCLI(script)
	require.Equal(t, exitFail, code)
	require.Contains(t, stderr, "../data.txt is outside the base directory")

	code, stdout, stderr := runCLI("--dir", base, script)
	require.Equal(t, exitOK, code, stderr)
	require.Equal(t, "shared\n", stdout)
}

// TestProtectedWrites: --no-code scripts cannot plant a git config, unless
// --allow-protected-write names it.
func TestProtectedWrites(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "plant.mld")
	require.NoError(t, os.WriteFile(script, []byte("output \"[core]\" to \".git/config\"\n"), 0o644))

	code, _, stderr := runCLI("--no-code", script)
	require.Equal(t, exitFail, code)
	require.Contains(t, stderr, "plant.mld:1:1: .git/config is protected")
	require.NoFileExists(t, filepath.Join(dir, ".git", "config"))

	code, _, stderr = runCLI("--no-code", "--allow-protected-write", ".git/config", script)
	require.Equal(t, exitOK, code, stderr)
	require.FileExists(t, filepath.Join(dir, ".git", "config"))
}
