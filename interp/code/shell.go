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
	"sync"
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
	// Dir, when set, is the working directory instead of Options.Dir.
	Dir string
}

// killGrace is how long a command's output may still be read after it
// ended, from processes that escaped the kill and hold its pipes.
const killGrace = 2 * time.Second

// RunShell runs req and returns its stdout with trailing whitespace
// removed (mlld trims command output). The command runs in its own process
// group in Options.Dir. Its environment is only PATH (default
// /usr/local/bin:/usr/bin:/bin when unset), HOME, LANG, LC_ALL, TMPDIR,
// USER and TZ copied from this process when set, plus the request's Env
// (which wins on a clash); nothing else leaks in, so secrets in the
// process environment are not visible to scripts. Its stderr goes to
// Options.Stderr. A non-zero exit, a timeout or more
// stdout than Options.OutputLimit is an *Error. When the command ends, for
// whatever reason, the processes it left behind are killed (see
// Containment): a background job cannot outlive the command, the run or
// its timeout.
func (e *Engine) RunShell(ctx context.Context, req ShellRequest) (string, error) {
	lang := req.Lang
	if lang == "" {
		lang = "cmd"
	}
	if err := ctx.Err(); err != nil {
		return "", InterruptedError(lang, err)
	}
	shell := "/bin/sh"
	if lang == "bash" {
		if p, err := exec.LookPath("bash"); err == nil {
			shell = p
		}
	}
	env, err := shellEnv(req.Env)
	if err != nil {
		return "", &Error{Lang: lang, Message: err.Error()}
	}
	overflow := make(chan struct{})
	stdout := &LimitedBuffer{limit: e.opts.OutputLimit, onOverflow: func() { close(overflow) }}
	stderr := &LimitedBuffer{limit: e.opts.OutputLimit}
	var errDst io.Writer = stderr
	if e.opts.Stderr != nil {
		errDst = io.MultiWriter(stderr, e.opts.Stderr)
	}
	pipes, err := openPipes(stdout, errDst)
	if err != nil {
		return "", &Error{Lang: lang, Message: fmt.Sprintf("cannot start %s: %v", shell, err), ExitCode: 127}
	}
	cmd, err := startContained(func(attr *syscall.SysProcAttr) *exec.Cmd {
		cmd := exec.Command(shell, "-c", req.Script)
		cmd.Dir = e.opts.Dir
		if req.Dir != "" {
			cmd.Dir = req.Dir
		}
		cmd.Env = env
		cmd.SysProcAttr = attr
		if req.HasStdin {
			cmd.Stdin = strings.NewReader(req.Stdin)
		}
		cmd.Stdout, cmd.Stderr = pipes.outW, pipes.errW
		cmd.WaitDelay = killGrace
		return cmd
	})
	pipes.started()
	if err != nil {
		pipes.finish()
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
		stopped = TimeoutError(lang, limit)
	case <-overflow:
		stopped = &Error{Lang: lang, Message: fmt.Sprintf("command output exceeded %d bytes", e.opts.OutputLimit),
			Hint: "write large output to a file, or raise the OutputLimit option"}
	case <-ctx.Done():
		stopped = InterruptedError(lang, ctx.Err())
	}
	// The command is over, and so is everything it started: background
	// jobs die now rather than write files later (in a PID namespace the
	// kernel has killed them all when the shell exited). Its output is
	// read to the end only then.
	killGroup(cmd)
	if stopped != nil {
		<-done
	}
	pipes.finish()
	if stopped != nil {
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
			// Exited cleanly but Wait failed: keep the output.
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

// outputPipes carry a command's stdout and stderr. They are os pipes
// rather than writers given to exec, so that Wait returns when the shell
// exits and not when the last process holding a pipe does: the leftovers
// can then be killed at once.
type outputPipes struct {
	outR, outW, errR, errW *os.File
	copies                 sync.WaitGroup
}

func openPipes(stdout, stderr io.Writer) (*outputPipes, error) {
	p := &outputPipes{}
	var err error
	if p.outR, p.outW, err = os.Pipe(); err != nil {
		return nil, err
	}
	if p.errR, p.errW, err = os.Pipe(); err != nil {
		p.outR.Close()
		p.outW.Close()
		return nil, err
	}
	p.copies.Add(2)
	go p.copy(stdout, p.outR)
	go p.copy(stderr, p.errR)
	return p, nil
}

func (p *outputPipes) copy(dst io.Writer, r *os.File) {
	defer p.copies.Done()
	_, _ = io.Copy(dst, r)
}

// started closes this process's ends of the write side: the command has
// its own copies now.
func (p *outputPipes) started() {
	p.outW.Close()
	p.errW.Close()
}

// finish waits for the output to be read to its end, or for killGrace
// when a process that escaped containment still holds a pipe.
func (p *outputPipes) finish() {
	read := make(chan struct{})
	go func() {
		p.copies.Wait()
		close(read)
	}()
	select {
	case <-read:
	case <-time.After(killGrace):
		_ = p.outR.SetReadDeadline(time.Now())
		_ = p.errR.SetReadDeadline(time.Now())
		<-read
	}
	p.outR.Close()
	p.errR.Close()
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
