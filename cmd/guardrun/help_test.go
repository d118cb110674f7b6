package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// -h and --help print the usage on stdout and exit 0, on guardrun and on
// every command (they exited 2 before issue 31).
func TestHelpExitsZeroEverywhere(t *testing.T) {
	cmds := [][]string{{}}
	for _, c := range commands() {
		cmds = append(cmds, []string{c.name})
	}
	cmds = append(cmds, []string{"hook", "claude"}, []string{"log", "--all"})
	for _, c := range cmds {
		for _, h := range []string{"-h", "--help", "-help"} {
			args := append(append([]string(nil), c...), h)
			code, out, stderr := runCLI(args...)
			require.Equal(t, exitOK, code, "%q: %s", args, stderr)
			require.Regexp(t, `^usage:\s+guardrun`, out, "%q", args)
			require.Empty(t, stderr, "%q", args)
		}
	}
}

// `guardrun help` lists every command with a line each; `help CMD` shows
// one command's flags.
func TestHelpCommand(t *testing.T) {
	code, out, _ := runCLI("help")
	require.Equal(t, exitOK, code)
	for _, c := range commands() {
		require.Regexp(t, `(?m)^  `+c.name+` +\S`, out)
	}
	code, out, _ = runCLI("help", "check")
	require.Equal(t, exitOK, code)
	require.Contains(t, out, "usage: guardrun check")
	require.Contains(t, out, "-json")
	code, _, stderr := runCLI("help", "chekc")
	require.Equal(t, exitUsage, code)
	require.Contains(t, stderr, "did you mean check?")
}

// An unknown command is a usage error with a did-you-mean, not a script
// named like it; `version` prints the version and commit.
func TestUnknownCommandAndVersion(t *testing.T) {
	code, out, stderr := runCLI("chekc", "p.guard")
	require.Equal(t, exitUsage, code)
	require.Empty(t, out)
	require.Contains(t, stderr, "unknown command chekc; did you mean check?")
	require.Contains(t, stderr, "commands:")

	code, out, _ = runCLI("version")
	require.Equal(t, exitOK, code)
	require.True(t, strings.HasPrefix(out, "guardrun "), out)
	require.Contains(t, out, "\ncommit ")

	// --version is what a user types first; it prints the same.
	for _, flag := range []string{"--version", "-version", "-V"} {
		code, got, stderr := runCLI(flag)
		require.Equal(t, exitOK, code, "%s: %s", flag, stderr)
		require.Equal(t, out, got, flag)
	}
}
