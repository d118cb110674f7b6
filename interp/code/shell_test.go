package code

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func runShell(t *testing.T, e *Engine, req ShellRequest) (string, *Error) {
	t.Helper()
	out, err := e.RunShell(context.Background(), req)
	if err == nil {
		return out, nil
	}
	var ce *Error
	require.True(t, errors.As(err, &ce), "%T %v", err, err)
	return out, ce
}

func TestRunShellOutput(t *testing.T) {
	e := NewEngine(Options{})
	tests := []struct {
		name string
		req  ShellRequest
		want string
	}{
		{"echo trims newline", ShellRequest{Script: "echo hi"}, "hi"},
		{"trailing blank lines trimmed", ShellRequest{Script: "printf 'a\\n\\n\\n'"}, "a"},
		{"leading space kept", ShellRequest{Script: "printf '  a  \\n'"}, "  a"},
		{"pipes", ShellRequest{Script: "echo abc | tr a-z A-Z"}, "ABC"},
		{"stdin", ShellRequest{Script: "cat", Stdin: `{"name":"Ada"}`, HasStdin: true}, `{"name":"Ada"}`},
		{"no stdin is empty", ShellRequest{Script: "cat"}, ""},
		{"env", ShellRequest{Lang: "sh", Script: `echo "$v"`, Env: map[string]string{"v": "a b"}}, "a b"},
		{"clean env", ShellRequest{Script: `echo "${SECRET_TEST_VAR:-unset}"`}, "unset"},
		{"bash", ShellRequest{Lang: "bash", Script: "echo bash-ok"}, "bash-ok"},
	}
	t.Setenv("SECRET_TEST_VAR", "leaked")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := runShell(t, e, tt.req)
			require.Nil(t, err)
			require.Equal(t, tt.want, out)
		})
	}
}

func TestRunShellDir(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "f.txt"), []byte("content\n"), 0o600))
	e := NewEngine(Options{Dir: dir})
	out, err := runShell(t, e, ShellRequest{Script: "cat f.txt"})
	require.Nil(t, err)
	require.Equal(t, "content", out)
}

func TestRunShellExitCode(t *testing.T) {
	var stderr bytes.Buffer
	e := NewEngine(Options{Stderr: &stderr})
	_, err := runShell(t, e, ShellRequest{Script: "echo partial; echo oops >&2; exit 3"})
	require.NotNil(t, err)
	require.Equal(t, 3, err.ExitCode)
	require.Equal(t, "Command failed with exit code 3: oops", err.Message)
	require.Equal(t, "oops\n", err.Stderr)
	require.Equal(t, "oops\n", stderr.String())

	_, err = runShell(t, e, ShellRequest{Script: "definitely-not-a-command-xyz"})
	require.NotNil(t, err)
	require.Equal(t, 127, err.ExitCode)
}

func TestRunShellTimeoutKillsGroup(t *testing.T) {
	e := NewEngine(Options{Timeout: 200 * time.Millisecond})
	start := time.Now()
	_, err := runShell(t, e, ShellRequest{Script: "sleep 30 & sleep 30; echo done"})
	require.NotNil(t, err)
	require.True(t, err.TimedOut)
	require.Contains(t, err.Message, "timed out after 200ms")
	require.Less(t, time.Since(start), 10*time.Second)
}

func TestRunShellContextCancel(t *testing.T) {
	e := NewEngine(Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err := e.RunShell(ctx, ShellRequest{Script: "sleep 30"})
	var ce *Error
	require.True(t, errors.As(err, &ce))
	require.True(t, ce.Interrupted)
}

func TestRunShellOutputCap(t *testing.T) {
	e := NewEngine(Options{OutputLimit: 1000})
	start := time.Now()
	_, err := runShell(t, e, ShellRequest{Script: "while true; do echo xxxxxxxxxxxxxxxxxxxx; done"})
	require.NotNil(t, err)
	require.Equal(t, "command output exceeded 1000 bytes", err.Message)
	require.Less(t, time.Since(start), 10*time.Second)

	out, err := runShell(t, e, ShellRequest{Script: "printf '%0999d' 0"})
	require.Nil(t, err)
	require.Len(t, out, 999)
}

func TestBuildCommand(t *testing.T) {
	tests := []struct {
		name   string
		segs   []Segment
		script string
	}{
		{"unquoted", []Segment{{Literal: "echo "}, {Value: "x", IsValue: true}}, `echo "${__gr_v1}"`},
		{"double quoted", []Segment{{Literal: `echo "Hello, `}, {Value: "x", IsValue: true}, {Literal: `!"`}}, `echo "Hello, ${__gr_v1}!"`},
		{"single quoted", []Segment{{Literal: `echo 'a `}, {Value: "x", IsValue: true}, {Literal: ` b'`}}, `echo 'a '"${__gr_v1}"' b'`},
		{"escaped quote stays unquoted", []Segment{{Literal: `echo \"`}, {Value: "x", IsValue: true}}, `echo \""${__gr_v1}"`},
		{"quote closed", []Segment{{Literal: `echo "a" `}, {Value: "x", IsValue: true}}, `echo "a" "${__gr_v1}"`},
		{"two values", []Segment{{Value: "a", IsValue: true}, {Literal: " "}, {Value: "b", IsValue: true}}, `"${__gr_v1}" "${__gr_v2}"`},
		{"pending backslash", []Segment{{Literal: `echo \`}, {Value: "x", IsValue: true}}, `echo \\"${__gr_v1}"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			script, env := BuildCommand(tt.segs)
			require.Equal(t, tt.script, script)
			n := 0
			for _, s := range tt.segs {
				if s.IsValue {
					n++
				}
			}
			require.Len(t, env, n)
		})
	}
}

func TestBuildCommandInjection(t *testing.T) {
	e := NewEngine(Options{Dir: t.TempDir()})
	hostile := []string{
		"$(echo pwned)",
		"`echo pwned`",
		`"; echo pwned; "`,
		`'; echo pwned; '`,
		"a\nb; echo pwned",
		`\`,
		"*",
		"${HOME}",
		"-n",
		"a  b\tc",
		"",
	}
	templates := []struct {
		name     string
		pre, suf string
		wrap     func(string) string
	}{
		{"unquoted", "printf '%s|' ", "", func(v string) string { return v + "|" }},
		{"double", `printf '%s|' "<`, `>"`, func(v string) string { return "<" + v + ">|" }},
		{"single", `printf '%s|' '<`, `>'`, func(v string) string { return "<" + v + ">|" }},
	}
	for _, tpl := range templates {
		for _, v := range hostile {
			t.Run(tpl.name+"/"+v, func(t *testing.T) {
				script, env := BuildCommand([]Segment{{Literal: tpl.pre}, {Value: v, IsValue: true}, {Literal: tpl.suf}})
				out, err := runShell(t, e, ShellRequest{Script: script, Env: env})
				require.Nil(t, err)
				require.Equal(t, strings.TrimRight(tpl.wrap(v), " \t\n"), out)
				require.NotContains(t, out, "pwned\n")
			})
		}
	}
	// The markdown example: cmd {echo "Hello, @name!"}.
	script, env := BuildCommand([]Segment{{Literal: `echo "Hello, `}, {Value: "World", IsValue: true}, {Literal: `!"`}})
	out, err := runShell(t, e, ShellRequest{Script: script, Env: env})
	require.Nil(t, err)
	require.Equal(t, "Hello, World!", out)
}

// TestRunShellLeavesNoProcessesBehind: background jobs die with the command
// that started them, so none writes a file after it returned. Escapes from
// the process group (setsid, a double fork under job control) need the PID
// namespace.
func TestRunShellLeavesNoProcessesBehind(t *testing.T) {
	t.Run("contained", testNoProcessesBehind)
	// Where the kernel refuses namespaces, the process group still goes.
	saved := containState.Load()
	containState.Store(containOff)
	defer containState.Store(saved)
	t.Run("process-group", testNoProcessesBehind)
}

func testNoProcessesBehind(t *testing.T) {
	scripts := map[string]string{
		"background": "(sleep 1; echo late > %s) >/dev/null 2>&1 &",
		"nohup":      "nohup sh -c 'sleep 1; echo late > %s' >/dev/null 2>&1 &",
		"holds-pipe": "(sleep 1; echo late > %s) &",
	}
	dir := t.TempDir()
	e := NewEngine(Options{Dir: dir})
	// The first command finds out whether the system allows namespaces.
	_, err := runShell(t, e, ShellRequest{Script: "true"})
	require.Nil(t, err)
	if Containment() == "pid-namespace" {
		scripts["setsid"] = "setsid sh -c 'sleep 1; echo late > %s' >/dev/null 2>&1 < /dev/null &"
		scripts["job-control"] = "set -m; (sleep 1; echo late > %s) >/dev/null 2>&1 &"
		scripts["double-fork"] = "( ( setsid sh -c 'sleep 1; echo late > %s' & ) & ) >/dev/null 2>&1"
	}
	start := time.Now()
	for name, script := range scripts {
		_, err := runShell(t, e, ShellRequest{Script: fmt.Sprintf(script, filepath.Join(dir, name))})
		require.Nil(t, err, name)
	}
	require.Less(t, time.Since(start), 8*time.Second)
	time.Sleep(1500 * time.Millisecond)
	for name := range scripts {
		require.NoFileExists(t, filepath.Join(dir, name), "%s outlived its command (containment: %s)", name, Containment())
	}
	t.Logf("containment: %s", Containment())
}
