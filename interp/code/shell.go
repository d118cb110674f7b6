package code

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sort"
	"strings"
	"syscall"
	"time"
	"unicode"
)

// ShellRequest is one command to run.
type ShellRequest struct {
	// Lang is "cmd", "sh" or "bash" (bash falls back to sh when missing).
	Lang string
	// Script is the shell text, run with `sh -c`.
	Script string
	// Env adds variables to the command's environment (interpolated
	// values from BuildCommand, parameters of sh blocks).
	Env map[string]string
	// Stdin is fed to the command when HasStdin is set; otherwise stdin
	// is empty.
	Stdin    string
	HasStdin bool
}

// killGrace is how long Wait may block on pipes held open by leftover
// grandchildren after the process group was killed.
const killGrace = 2 * time.Second

// RunShell runs req and returns its stdout with trailing whitespace
// removed (mlld trims command output). The command runs in its own process
// group in Options.Dir. Its environment is only PATH (default
// /usr/local/bin:/usr/bin:/bin when unset), HOME, LANG, LC_ALL, TMPDIR,
// USER and TZ copied from this process when set, plus the request's Env
// (which wins on a clash); nothing else leaks in, so secrets in the
// process environment are not visible to scripts. Its stderr goes to
// Options.Stderr. A non-zero exit, a timeout or more
// stdout than Options.OutputLimit is an *Error; on timeout or overflow the
// whole process group is killed.
func (e *Engine) RunShell(ctx context.Context, req ShellRequest) (string, error) {
	lang := req.Lang
	if lang == "" {
		lang = "cmd"
	}
	if err := ctx.Err(); err != nil {
		return "", interruptedError(lang, err)
	}
	shell := "/bin/sh"
	if lang == "bash" {
		if p, err := exec.LookPath("bash"); err == nil {
			shell = p
		}
	}
	cmd := exec.Command(shell, "-c", req.Script)
	cmd.Dir = e.opts.Dir
	env, err := shellEnv(req.Env)
	if err != nil {
		return "", &Error{Lang: lang, Message: err.Error()}
	}
	cmd.Env = env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if req.HasStdin {
		cmd.Stdin = strings.NewReader(req.Stdin)
	}

	overflow := make(chan struct{})
	stdout := &limitedBuffer{limit: e.opts.OutputLimit, onOverflow: func() { close(overflow) }}
	stderr := &limitedBuffer{limit: e.opts.OutputLimit}
	cmd.Stdout = stdout
	if e.opts.Stderr != nil {
		cmd.Stderr = io.MultiWriter(stderr, e.opts.Stderr)
	} else {
		cmd.Stderr = stderr
	}
	cmd.WaitDelay = killGrace

	if err := cmd.Start(); err != nil {
		return "", &Error{Lang: lang, Message: fmt.Sprintf("cannot start %s: %v", shell, err), ExitCode: 127}
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()

	limit := e.timeout()
	timer := time.NewTimer(limit)
	defer timer.Stop()
	var stopped *Error
	var waitErr error
	select {
	case waitErr = <-done:
	case <-timer.C:
		stopped = timeoutError(lang, limit)
	case <-overflow:
		stopped = &Error{Lang: lang, Message: fmt.Sprintf("command output exceeded %d bytes", e.opts.OutputLimit),
			Hint: "write large output to a file, or raise the OutputLimit option"}
	case <-ctx.Done():
		stopped = interruptedError(lang, ctx.Err())
	}
	if stopped != nil {
		killGroup(cmd)
		<-done
		stopped.Stderr = stderr.String()
		return "", stopped
	}
	if stdout.Overflowed() {
		return "", &Error{Lang: lang, Message: fmt.Sprintf("command output exceeded %d bytes", e.opts.OutputLimit),
			Hint: "write large output to a file, or raise the OutputLimit option"}
	}
	out := strings.TrimRightFunc(stdout.String(), unicode.IsSpace)
	if waitErr != nil {
		var exit *exec.ExitError
		code := -1
		if errors.As(waitErr, &exit) {
			code = exit.ExitCode()
		}
		if code == 0 {
			// Exited cleanly but Wait failed (e.g. pipes held open by a
			// background child past the grace period): keep the output.
			return out, nil
		}
		msg := fmt.Sprintf("Command failed with exit code %d", code)
		if code < 0 {
			msg = fmt.Sprintf("Command failed: %v", waitErr)
		}
		errText := strings.TrimSpace(stderr.String())
		if errText != "" {
			msg += ": " + firstLine(errText)
		}
		return "", &Error{Lang: lang, Message: msg, ExitCode: code, Stderr: stderr.String()}
	}
	return out, nil
}

func killGroup(cmd *exec.Cmd) {
	if cmd.Process == nil {
		return
	}
	// The negative pid addresses the whole group, so children the shell
	// started die too.
	if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); err != nil {
		_ = cmd.Process.Kill()
	}
}

// shellEnv builds a small environment: the variables a command needs to
// find programs and behave normally, plus extra. Values are not shell
// text, but the OS forbids NUL in them.
func shellEnv(extra map[string]string) ([]string, error) {
	env := map[string]string{
		"PATH": "/usr/local/bin:/usr/bin:/bin",
	}
	for _, k := range []string{"PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "USER", "TZ"} {
		if v, ok := os.LookupEnv(k); ok {
			env[k] = v
		}
	}
	for k, v := range extra {
		if k == "" || strings.ContainsAny(k, "=\x00") {
			return nil, fmt.Errorf("invalid environment variable name %q", k)
		}
		env[k] = strings.ReplaceAll(v, "\x00", "")
	}
	keys := make([]string, 0, len(env))
	for k := range env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = k + "=" + env[k]
	}
	return out, nil
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
