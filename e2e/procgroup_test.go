//go:build e2e

package e2e

import (
	"os/exec"
	"syscall"
)

// setProcessGroup puts the host in its own process group and kills the
// whole group on cancel, so hook processes and shells it started die
// with it.
func setProcessGroup(c *exec.Cmd) {
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	c.Cancel = func() error { return syscall.Kill(-c.Process.Pid, syscall.SIGKILL) }
	c.WaitDelay = 2e9
}
