package hook

import (
	"errors"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
)

// execUserNSEnv marks guardrun exec's second stage: the same command
// line, run in a user and mount namespace of its own, where it may cover
// the workspace's secrets (sandbox.Profile.Restrict) although the user is
// not root.
const execUserNSEnv = "GUARDRUN_EXEC_USERNS"

// inUserNamespace runs this guardrun exec again in a user namespace of
// its own (the same user and group ids mapped onto themselves, and
// CAP_SYS_ADMIN there until it executes the command), forwards the
// signals a terminal sends, and returns the status to exit with. A Go
// process cannot enter a new user namespace itself (it has threads), so
// this costs one more start of guardrun. It fails when the kernel or
// its configuration refuses unprivileged user namespaces; the command
// has not run then.
func inUserNamespace(args []string) (int, error) {
	self, err := os.Executable()
	if err != nil {
		return 0, err
	}
	cmd := exec.Command(self, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.Env = append(os.Environ(), execUserNSEnv+"=1")
	uid, gid := os.Getuid(), os.Getgid()
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Cloneflags:  syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS,
		UidMappings: []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}},
		AmbientCaps: []uintptr{21}, // CAP_SYS_ADMIN
	}
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT)
	defer signal.Stop(sigs)
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	go func() {
		for s := range sigs {
			cmd.Process.Signal(s)
		}
	}()
	err = cmd.Wait()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			// Die of the same signal, as a shell's child would.
			signal.Reset(ws.Signal())
			syscall.Kill(os.Getpid(), ws.Signal())
			return 128 + int(ws.Signal()), nil
		}
		return ee.ExitCode(), nil
	}
	if err != nil {
		return ExitExecCannot, err
	}
	return 0, nil
}

// inSecondStage reports whether this process is guardrun exec's second
// stage, and takes the mark out of the environment the command gets.
func inSecondStage() bool {
	if os.Getenv(execUserNSEnv) == "" {
		return false
	}
	os.Unsetenv(execUserNSEnv)
	return true
}
