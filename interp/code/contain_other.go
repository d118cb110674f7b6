//go:build !linux

package code

import "syscall"

// processAttr starts a command in its own process group, killed as a whole
// when the command ends. Processes that leave the group (setsid) are not
// contained on this system.
func processAttr(bool) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}

const canContain = false
