package sandbox

import "errors"

// UnavailableError says why the kernel cannot enforce a profile: the
// command would run unconfined.
type UnavailableError struct {
	Reason string
}

func (e *UnavailableError) Error() string { return "unconfined: " + e.Reason }

// IsUnavailable reports whether err says the kernel cannot confine.
func IsUnavailable(err error) bool {
	var u *UnavailableError
	return errors.As(err, &u)
}
