//go:build !unix

package rawfile

import (
	"io"
	"io/fs"
	"os"
)

// ReadFile returns the content of the regular file name, or an error
// (a *fs.PathError) when it cannot be opened or read, is not a regular
// file, or holds more than max bytes.
func ReadFile(name string, max int64) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, &fs.PathError{Op: "read", Path: name, Err: errNotRegular}
	}
	if st.Size() > max {
		return nil, &fs.PathError{Op: "read", Path: name, Err: errTooLarge}
	}
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, &fs.PathError{Op: "read", Path: name, Err: err}
	}
	if int64(len(b)) > max {
		return nil, &fs.PathError{Op: "read", Path: name, Err: errTooLarge}
	}
	return b, nil
}

// OpenFile is os.OpenFile (a file that is never a pipe or a terminal).
func OpenFile(name string, flag int, perm fs.FileMode) (*os.File, error) {
	return os.OpenFile(name, flag, perm)
}
