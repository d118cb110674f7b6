//go:build unix

package hook

import "syscall"

// execve replaces this process with the program at path; it returns
// only on failure.
func execve(path string, argv, env []string) error { return syscall.Exec(path, argv, env) }
