package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestFmtCommand(t *testing.T) {
	dir := t.TempDir()
	ugly := filepath.Join(dir, "p.mld")
	require.NoError(t, os.WriteFile(ugly, []byte("var   @x=1\nshow @x   \n"), 0o644))
	want := "var @x = 1\nshow @x\n"

	code, out, _ := runCLI("fmt", ugly)
	require.Equal(t, exitOK, code)
	require.Equal(t, want, out)

	code, out, _ = runCLI("fmt", "--check", ugly)
	require.Equal(t, exitFail, code)
	require.Equal(t, ugly+"\n", out)

	code, out, _ = runCLI("fmt", "-d", ugly)
	require.Equal(t, exitOK, code)
	require.Contains(t, out, "-var   @x=1\n-show @x   \n+var @x = 1\n+show @x\n")

	code, _, _ = runCLI("fmt", "-w", ugly)
	require.Equal(t, exitOK, code)
	got, err := os.ReadFile(ugly)
	require.NoError(t, err)
	require.Equal(t, want, string(got))
	code, out, _ = runCLI("fmt", "--check", ugly)
	require.Equal(t, exitOK, code)
	require.Empty(t, out)
}

func TestFmtParseErrorExits1(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.mld")
	require.NoError(t, os.WriteFile(bad, []byte("var @x = \n"), 0o644))
	code, _, stderr := runCLI("fmt", bad)
	require.Equal(t, exitFail, code)
	require.Contains(t, stderr, "bad.mld:1")
	code, _, _ = runCLI("fmt")
	require.Equal(t, exitUsage, code)
}

// A decision test file is read as one: a syntax error names the test
// syntax (not "rename the file to .mld.md"), and a good one is kept as
// written, with a note; a policy with an ask arm is reformatted and
// --check lists it.
func TestFmtTestFileAndAskArm(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "b.test.mld")
	require.NoError(t, os.WriteFile(bad, []byte("test \"push\" {\n}\n"), 0o644))
	code, _, stderr := runCLI("fmt", bad)
	require.Equal(t, exitFail, code)
	require.Contains(t, stderr, bad+":1:1: ")
	require.Contains(t, stderr, `test "name" [`)
	require.NotContains(t, stderr, ".mld.md")

	good := "use \"p.guard\"\n\ntest \"push asks\" events [\n  event tool.before Bash { command: \"git push\" }\n  expect ask\n]\n"
	gf := filepath.Join(dir, "g.test.mld")
	require.NoError(t, os.WriteFile(gf, []byte(good), 0o644))
	code, out, stderr := runCLI("fmt", gf)
	require.Equal(t, exitOK, code, stderr)
	require.Equal(t, good, out)
	require.Contains(t, stderr, "decision test file")
	code, out, _ = runCLI("fmt", "--check", gf)
	require.Equal(t, exitOK, code)
	require.Empty(t, out)

	ask := filepath.Join(dir, "p.guard")
	require.NoError(t, os.WriteFile(ask, []byte("guard @push before op:cmd:git = when [\n  *   =>   ask \"Push?\"\n]\n"), 0o644))
	code, out, _ = runCLI("fmt", "--check", ask)
	require.Equal(t, exitFail, code)
	require.Equal(t, ask+"\n", out)
}
