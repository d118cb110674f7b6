//go:build !linux

package hook

import "errors"

// inUserNamespace is Linux's.
func inUserNamespace(args []string) (int, error) {
	return 0, errors.New("user namespaces are Linux's")
}

// inSecondStage is never true off Linux.
func inSecondStage() bool { return false }
