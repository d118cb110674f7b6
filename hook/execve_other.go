//go:build !unix

package hook

import (
	"errors"
	"runtime"
)

// execve cannot replace the process off unix.
func execve(path string, argv, env []string) error {
	return errors.New("guardrun exec runs commands on unix only, not on " + runtime.GOOS)
}
