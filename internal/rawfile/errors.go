package rawfile

import "errors"

var (
	errNotRegular = errors.New("not a regular file")
	errTooLarge   = errors.New("file too large")
)
