//go:build unix

package rawfile

import (
	"io/fs"
	"os"
	"syscall"
)

// ReadFile returns the content of the regular file name, or an error
// (a *fs.PathError) when it cannot be opened or read, is not a regular
// file, or holds more than max bytes.
func ReadFile(name string, max int64) ([]byte, error) {
	var st syscall.Stat_t
	return readFile(name, max, &st)
}

// readFile is ReadFile that also returns, in st, the file's status as it
// was opened, before it was read.
func readFile(name string, max int64, st *syscall.Stat_t) ([]byte, error) {
	fd, err := open(name, syscall.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer syscall.Close(fd)
	if err := noEINTR(func() error { return syscall.Fstat(fd, st) }); err != nil {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: err}
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		return nil, &fs.PathError{Op: "read", Path: name, Err: errNotRegular}
	}
	if st.Size > max {
		return nil, &fs.PathError{Op: "read", Path: name, Err: errTooLarge}
	}
	// One byte more than the size: the read that returns 0 ends the file,
	// and a file that grew since is read to its end (or to max).
	b := make([]byte, 0, st.Size+1)
	for {
		var n int
		err := noEINTR(func() (err error) { n, err = syscall.Read(fd, b[len(b):cap(b)]); return err })
		if n > 0 {
			b = b[:len(b)+n]
		}
		switch {
		case err != nil:
			return nil, &fs.PathError{Op: "read", Path: name, Err: err}
		case n == 0:
			return b, nil
		case int64(len(b)) > max:
			return nil, &fs.PathError{Op: "read", Path: name, Err: errTooLarge}
		case len(b) == cap(b):
			b = append(b, 0)[:len(b)]
		}
	}
}

// OpenFile is os.OpenFile for a file that is never a pipe or a terminal
// (a lock, a journal, a log): the *os.File it returns does blocking
// system calls and is not registered with the runtime's poller.
func OpenFile(name string, flag int, perm fs.FileMode) (*os.File, error) {
	fd, err := open(name, flag, perm)
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(fd), name), nil
}

func open(name string, flag int, perm fs.FileMode) (int, error) {
	var fd int
	err := noEINTR(func() (err error) {
		fd, err = syscall.Open(name, flag|syscall.O_CLOEXEC, uint32(perm.Perm()))
		return err
	})
	if err != nil {
		return -1, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	return fd, nil
}

// noEINTR runs call again while a signal interrupts it (the Go runtime
// sends them for preemption).
func noEINTR(call func() error) error {
	for {
		if err := call(); err != syscall.EINTR {
			return err
		}
	}
}
