package agent

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// FileStore keeps each session in its own JSON file, for hook processes
// that live one event each. It is safe under concurrent processes: an
// update holds an exclusive flock on the session's lock file for its whole
// read-modify-write, and writes a temporary file it renames over the old
// one, so a reader never sees a torn file. Files are 0600 in a 0700
// directory; a session's file name is a hash of its id (ids are not
// trusted as paths). The store holds fingerprints, never raw text.
type FileStore struct {
	// Dir holds the session files.
	Dir string
	// TTL expires sessions not updated for that long (0: 24h); an expired
	// session starts afresh, and Sweep removes expired files.
	TTL time.Duration
	// MaxBytes caps a session file (0: 16 MiB); a larger file is an error.
	MaxBytes  int64
	now       func() time.Time
	sweepOnce sync.Once
}

// DefaultStateDir is where the file store lives by default:
// $XDG_STATE_HOME/guardrun/sessions, or ~/.local/state/guardrun/sessions.
func DefaultStateDir() (string, error) {
	base := os.Getenv("XDG_STATE_HOME")
	if base == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("no state directory: %w", err)
		}
		base = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(base, "guardrun", "sessions"), nil
}

// NewFileStore returns a store in dir, creating it (0700) if needed. A
// directory others can read or write is refused: sessions are private.
func NewFileStore(dir string) (*FileStore, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("session store: %w", err)
	}
	st, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("session store: %w", err)
	}
	if st.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("session store %s is accessible to other users (mode %v); run chmod 700 on it", dir, st.Mode().Perm())
	}
	return &FileStore{Dir: dir, now: time.Now}, nil
}

func (f *FileStore) path(id string) string {
	sum := sha256.Sum256([]byte(id))
	return filepath.Join(f.Dir, hex.EncodeToString(sum[:16]))
}

func (f *FileStore) clock() time.Time {
	if f.now == nil {
		return time.Now()
	}
	return f.now()
}

// Update implements Store.
func (f *FileStore) Update(ctx context.Context, id string, fn func(*Session) error) error {
	f.sweepOnce.Do(func() { _ = f.Sweep() })
	base := f.path(id)
	lock, err := lockFile(ctx, base+".lock")
	if err != nil {
		return err
	}
	defer func() {
		syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)
		lock.Close()
	}()
	s, err := f.read(base + ".json")
	if err != nil {
		return err
	}
	now := f.clock()
	// The lock file's time says the session is in use (Sweep keeps it).
	_ = os.Chtimes(base+".lock", now, now)
	if s == nil || s.ID != id || now.Sub(s.Updated) > ttlOr(f.TTL) {
		s = &Session{ID: id, Created: now}
	}
	if err := fn(s); err != nil {
		return err
	}
	s.Updated = now
	return f.write(base+".json", s)
}

// lockFile opens and exclusively locks path. A lock file Sweep removed
// between the open and the lock is stale (another process may lock the
// new one): it is dropped and the lock taken again.
func lockFile(ctx context.Context, path string) (*os.File, error) {
	for {
		lock, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
		if err != nil {
			return nil, fmt.Errorf("session store: cannot open lock: %w", err)
		}
		if err := flockCtx(ctx, lock); err != nil {
			lock.Close()
			return nil, err
		}
		held, err1 := lock.Stat()
		cur, err2 := os.Stat(path)
		if err1 == nil && err2 == nil && os.SameFile(held, cur) {
			return lock, nil
		}
		syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)
		lock.Close()
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("session store: lock not acquired: %w", err)
		}
	}
}

// flockCtx takes an exclusive lock, giving up when ctx ends.
func flockCtx(ctx context.Context, file *os.File) error {
	for {
		err := syscall.Flock(int(file.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			return fmt.Errorf("session store: cannot lock: %w", err)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("session store: lock not acquired: %w", ctx.Err())
		case <-time.After(time.Millisecond):
		}
	}
}

func (f *FileStore) read(path string) (*Session, error) {
	file, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("session store: cannot read: %w", err)
	}
	defer file.Close()
	max := f.MaxBytes
	if max <= 0 {
		max = 16 << 20
	}
	st, err := file.Stat()
	if err != nil {
		return nil, fmt.Errorf("session store: %w", err)
	}
	if st.Size() > max {
		return nil, fmt.Errorf("session store: %s is %d bytes, over the %d-byte cap", path, st.Size(), max)
	}
	var s Session
	if err := json.NewDecoder(file).Decode(&s); err != nil {
		return nil, fmt.Errorf("session store: %s is corrupt: %w", path, err)
	}
	return &s, nil
}

func (f *FileStore) write(path string, s *Session) error {
	data, err := json.Marshal(s)
	if err != nil {
		return fmt.Errorf("session store: %w", err)
	}
	tmp, err := os.CreateTemp(f.Dir, ".tmp-*")
	if err != nil {
		return fmt.Errorf("session store: cannot write: %w", err)
	}
	name := tmp.Name()
	_, werr := tmp.Write(data)
	if werr == nil {
		werr = tmp.Sync()
	}
	if cerr := tmp.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(name, path)
	}
	if werr != nil {
		os.Remove(name)
		return fmt.Errorf("session store: cannot write: %w", werr)
	}
	return nil
}

// Sweep removes sessions not updated within the TTL: their state file,
// and their lock file when no process holds it; and temporary files a
// crashed writer left.
func (f *FileStore) Sweep() error {
	entries, err := os.ReadDir(f.Dir)
	if err != nil {
		return err
	}
	now := f.clock()
	cut := now.Add(-ttlOr(f.TTL))
	for _, e := range entries {
		info, err := e.Info()
		if err != nil || !info.Mode().IsRegular() || !info.ModTime().Before(cut) {
			continue
		}
		p := filepath.Join(f.Dir, e.Name())
		switch {
		case strings.HasSuffix(e.Name(), ".json"):
			os.Remove(p)
		case strings.HasSuffix(e.Name(), ".lock"):
			lock, err := os.OpenFile(p, os.O_RDWR, 0)
			if err != nil {
				continue
			}
			if syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) == nil {
				if st, err := os.Stat(p); err == nil && st.ModTime().Before(cut) {
					os.Remove(p)
				}
				syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)
			}
			lock.Close()
		case strings.HasPrefix(e.Name(), ".tmp-") && info.ModTime().Before(now.Add(-time.Hour)):
			os.Remove(p)
		}
	}
	return nil
}
