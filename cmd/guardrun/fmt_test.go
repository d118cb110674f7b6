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
