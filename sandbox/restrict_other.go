//go:build !linux

package sandbox

import (
	"runtime"
)

// ABI is the Landlock ABI version the running kernel offers: none off
// Linux.
func ABI() (int, error) {
	return 0, &UnavailableError{Reason: "Landlock is Linux's; on " + runtime.GOOS + " guardrun exec does not confine yet (docs/security-model.md has the Seatbelt design for macOS)"}
}

// Restrict fails off Linux: nothing is restricted.
func (p *Profile) Restrict() error {
	_, err := ABI()
	return err
}
