package rawfile

import "errors"

var (
	errNotRegular = errors.New("not a regular file")
	errTooLarge   = errors.New("file too large")
)

// IsTooLarge reports whether err is ReadFile's error for a file over its
// limit.
func IsTooLarge(err error) bool { return errors.Is(err, errTooLarge) }
