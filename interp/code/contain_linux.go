//go:build linux

package code

import (
	"os"
	"syscall"
)

// processAttr returns how a command is started: in its own process group
// (killed as a whole when the command ends) and, when contain is set, as
// the first process of a new PID namespace. When that process exits the
// kernel kills every process left in the namespace, so nothing a command
// starts outlives it: not `cmd &`, not `setsid`, a double fork or a
// process that left the group. A user who is not root needs a user
// namespace for that; it maps the user's own uid and gid only.
func processAttr(contain bool) *syscall.SysProcAttr {
	a := &syscall.SysProcAttr{Setpgid: true}
	if !contain {
		return a
	}
	a.Cloneflags = syscall.CLONE_NEWPID
	if uid, gid := os.Geteuid(), os.Getegid(); uid != 0 {
		a.Cloneflags |= syscall.CLONE_NEWUSER
		a.UidMappings = []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}}
		a.GidMappings = []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}}
	}
	return a
}

// canContain reports whether processAttr(true) can be tried at all.
const canContain = true
