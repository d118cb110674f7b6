package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/guardrun/guardrun/rules"
)

// starterHome installs the starter policy (guardrun init claude) in
// private XDG directories and returns the user policy's path.
func starterHome(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	for _, kv := range [][2]string{{"HOME", "home"}, {"XDG_CONFIG_HOME", "config"}, {"XDG_STATE_HOME", "state"}, {"XDG_DATA_HOME", "data"}, {"XDG_CACHE_HOME", "cache"}} {
		dir := filepath.Join(root, kv[1])
		require.NoError(t, os.MkdirAll(dir, 0o700))
		t.Setenv(kv[0], dir)
	}
	code, out, stderr := runCLI("init", "claude", "--settings", filepath.Join(root, "settings.json"))
	require.Equal(t, exitOK, code, out+stderr)
	return filepath.Join(root, "config", "guardrun", "policy.guard")
}

// hookLoads runs the hook on one harmless call and reports whether it
// decided it (the policy loaded) and what it said.
func hookLoads(t *testing.T) (bool, string) {
	t.Helper()
	ev, err := json.Marshal(map[string]any{"session_id": "s1", "hook_event_name": "PreToolUse", "tool_name": "Bash",
		"tool_input": map[string]any{"command": "ls"}, "cwd": t.TempDir()})
	require.NoError(t, err)
	var out, errb bytes.Buffer
	code := runHook([]string{"claude"}, bytes.NewReader(ev), &out, &errb)
	said := out.String() + errb.String()
	return code == 0 && !strings.Contains(said, "policy:"), said
}

// A misspelt opt-in, built-in rule or module is an error at check (with
// its line and a did-you-mean), a failure of guardrun test on the policy's
// directory, and trust --user refuses to pin it: on main all three
// passed, then the hook denied every call.
func TestLockOutByTypoRefused(t *testing.T) {
	user := starterHome(t)
	orig, err := os.ReadFile(user)
	require.NoError(t, err)
	for _, c := range []struct{ line, want, hint string }{
		{"policy @optIn = { guards: { except: ['@forcePushMian'] } }", ":13:38: invalid policy @optIn", "did you mean '@forcePushMain'?"},
		{"policy @optIn = { defaults: { except: { 'no-secret-exfill': ['cmd:curl'] } } }", ":13:41: ", "did you mean 'no-secret-exfil'?"},
		{`import guards from "./gti.guard"`, ":13:1: File not found: ./gti.guard", "did you mean ./git.guard?"},
	} {
		require.NoError(t, os.WriteFile(user, append(append([]byte{}, orig...), c.line+"\n"...), 0o600))
		code, _, stderr := runCLI("check", user)
		require.Equal(t, exitFail, code, c.line)
		require.Contains(t, stderr, user+c.want, c.line)
		require.Contains(t, stderr, c.hint, c.line)

		code, out, _ := runCLI("test", filepath.Dir(user))
		require.Equal(t, exitFail, code, c.line)
		require.Contains(t, out, "FAIL the policy loads as the hook loads it ("+user+")", c.line)
		require.Contains(t, out, c.hint, c.line)

		code, out, stderr = runCLI("trust", "--user")
		require.Equal(t, exitFail, code, c.line)
		require.Empty(t, out)
		require.Contains(t, stderr, "not pinned", c.line)
		require.Contains(t, stderr, c.hint, c.line)
	}
	// The starter policy as written is pinned, and the hook decides with it.
	require.NoError(t, os.WriteFile(user, orig, 0o600))
	code, _, stderr := runCLI("trust", "--user")
	require.Equal(t, exitOK, code, stderr)
	ok, said := hookLoads(t)
	require.True(t, ok, said)
}

// Any policy trust --user accepts loads in the hook, and check agrees
// with trust: variations of the starter policy with opt-ins, rules and
// modules named correctly or misspelt (a letter dropped, two swapped,
// one doubled), each pinned if trust accepts it, then one call decided.
func TestTrustedPolicyLoadsInHook(t *testing.T) {
	user := starterHome(t)
	orig, err := os.ReadFile(user)
	require.NoError(t, err)
	var guards []string
	for _, f := range []string{"git.guard", "destructive.guard", "pipe-shell.guard", "untrusted.guard", "exfil.guard"} {
		src, err := rules.FS.ReadFile(f)
		require.NoError(t, err)
		for _, m := range regexp.MustCompile(`(?m)^guard @(\w+)`).FindAllStringSubmatch(string(src), -1) {
			guards = append(guards, m[1])
		}
	}
	require.NotEmpty(t, guards)
	ruleNames := []string{"no-secret-exfil", "no-untrusted-destructive", "no-sensitive-exfil"}
	modules := []string{"git.guard", "scope.guard", "budget.guard"}
	r := rand.New(rand.NewSource(40))
	accepted, refused := 0, 0
	for i := range 24 {
		name := func(s string) string {
			if r.Intn(3) == 0 {
				return s // spelt right
			}
			return misspell(r, s)
		}
		var line string
		switch i % 3 {
		case 0:
			line = fmt.Sprintf("policy @optIn = { guards: { except: ['@%s'] } }", name(guards[r.Intn(len(guards))]))
		case 1:
			line = fmt.Sprintf("policy @optIn = { defaults: { except: { '%s': ['cmd:curl'] } } }", name(ruleNames[r.Intn(len(ruleNames))]))
		case 2:
			line = fmt.Sprintf("import guards from \"./%s\"", name(modules[r.Intn(len(modules))]))
		}
		require.NoError(t, os.WriteFile(user, append(append([]byte{}, orig...), line+"\n"...), 0o600))
		checkCode, _, _ := runCLI("check", user)
		trustCode, _, trustErr := runCLI("trust", "--user")
		if trustCode != exitOK {
			refused++
			require.Equal(t, exitFail, checkCode, "trust refused but check passed: %s\n%s", line, trustErr)
			continue
		}
		accepted++
		require.Equal(t, exitOK, checkCode, "trust pinned but check failed: %s", line)
		ok, said := hookLoads(t)
		require.True(t, ok, "trust --user pinned %q, but the hook does not load it:\n%s", line, said)
	}
	require.Positive(t, accepted)
	require.Positive(t, refused)
}

// misspell changes s by one edit inside its letters: a letter dropped,
// two neighbours swapped or one doubled.
func misspell(r *rand.Rand, s string) string {
	b := []byte(s)
	i := 1 + r.Intn(len(b)-2)
	switch r.Intn(3) {
	case 0:
		return string(append(b[:i:i], b[i+1:]...))
	case 1:
		if b[i] != b[i+1] {
			b[i], b[i+1] = b[i+1], b[i]
			return string(b)
		}
		fallthrough
	default:
		return string(b[:i+1]) + string(b[i:])
	}
}
