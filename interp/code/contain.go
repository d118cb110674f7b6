package code

import (
	"errors"
	"os/exec"
	"sync/atomic"
	"syscall"
)

// Containment states, process-wide: whether the kernel lets commands start
// in their own PID namespace is learnt from the first try.
const (
	containUnknown int32 = iota
	containOn
	containOff
)

var containState atomic.Int32

func init() {
	if !canContain {
		containState.Store(containOff)
	}
}

// Containment says how a command's leftover processes are stopped when it
// ends: "pid-namespace" (all of them, wherever they went) or
// "process-group" (those still in its process group; a process that calls
// setsid escapes). It is "pid-namespace" only once a command has started
// that way, or will be tried on the next one.
func Containment() string {
	if containState.Load() == containOff {
		return "process-group"
	}
	return "pid-namespace"
}

// startContained starts the command built by build, in a PID namespace
// when the system allows it. A refusal by the kernel (no user namespaces,
// a sandbox that forbids them) switches containment off for the process
// and starts the command again without it.
func startContained(build func(attr *syscall.SysProcAttr) *exec.Cmd) (*exec.Cmd, error) {
	if containState.Load() != containOff {
		cmd := build(processAttr(true))
		err := cmd.Start()
		if err == nil {
			containState.Store(containOn)
			return cmd, nil
		}
		if !refused(err) {
			return nil, err
		}
		// Only when the same command starts without namespaces was it
		// the namespaces the kernel refused.
		cmd = build(processAttr(false))
		if err := cmd.Start(); err != nil {
			return nil, err
		}
		containState.Store(containOff)
		return cmd, nil
	}
	cmd := build(processAttr(false))
	return cmd, cmd.Start()
}

// refused reports an error by which the kernel declines the namespaces
// rather than a problem with the command itself.
func refused(err error) bool {
	for _, e := range []error{syscall.EPERM, syscall.EINVAL, syscall.ENOSPC, syscall.EUSERS, syscall.EACCES, syscall.ENOSYS} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}
