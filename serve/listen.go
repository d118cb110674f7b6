package serve

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"syscall"

	"github.com/guardrun/guardrun/serve/client"
)

// maxSocketPath is the longest path a Unix socket address holds (Linux's
// sun_path, less its terminating NUL).
const maxSocketPath = 107

// DefaultSocket is the server's socket (client.DefaultSocket):
// serve.sock in guardrun's state directory, the directory of the session
// store and the decision log it serves: one server per state directory.
func DefaultSocket() (string, error) { return client.DefaultSocket() }

// listener is a Unix socket listener that holds the socket's lock file
// until it is closed.
type listener struct {
	*net.UnixListener
	lock *os.File
}

func (l *listener) Close() error {
	err := l.UnixListener.Close()
	l.lock.Close()
	return err
}

// Listen makes the socket at path: its directory 0700, the socket 0600.
// A lock file beside it (path.lock, held while the server lives, holding
// its pid) keeps a second server off the same path; a socket left by a server that died is
// replaced.
func Listen(path string) (net.Listener, error) {
	if len(path) > maxSocketPath {
		return nil, fmt.Errorf("socket path %s is %d bytes, over the %d a Unix socket holds: give a shorter one with --socket", path, len(path), maxSocketPath)
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	if st, err := os.Stat(dir); err != nil {
		return nil, err
	} else if st.Mode().Perm()&0o022 != 0 {
		return nil, fmt.Errorf("socket directory %s is writable by others (%v): another user could replace the socket", dir, st.Mode().Perm())
	}
	lock, err := os.OpenFile(path+".lock", os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		lock.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("%w at %s", ErrServing, path)
		}
		return nil, err
	}
	// The lock file names the server (its pid), for whoever must stop it.
	if err := lock.Truncate(0); err == nil {
		lock.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	// Under the lock: a socket file here is a dead server's.
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		lock.Close()
		return nil, err
	}
	old := syscall.Umask(0o077)
	ul, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	syscall.Umask(old)
	if err != nil {
		lock.Close()
		return nil, err
	}
	if err := os.Chmod(path, 0o600); err != nil {
		ul.Close()
		lock.Close()
		return nil, err
	}
	return &listener{UnixListener: ul, lock: lock}, nil
}

// ErrServing is the error of Listen when another server holds the path.
var ErrServing = errors.New("another guardrun serve is serving")
