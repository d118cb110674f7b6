//go:build linux

package rawfile

import (
	"bytes"
	"crypto/sha256"
	"sync"
	"syscall"
	"time"
)

// Cache serves ReadFile from memory for a long-lived process that reads
// the same few files on every request (guardrun serve: the trust store,
// the approved policies, the workspace bindings). A file is read from
// memory while a stat of its name finds what the read found: the same
// device, inode, mode, size, and modification and change times. A
// change time cannot be set back by the file's owner, and a write
// changes it; so that a write within the file system's timestamp
// granularity of the read cannot leave it unchanged, a file is kept
// only once its times are older than the read by more than that
// granularity (settle). The zero Cache is
// ready to use; a nil *Cache reads every time.
type Cache struct {
	mu    sync.Mutex
	files map[string]cachedFile
	// now is the clock reads are timed by, and reads counts the files
	// read from disk (both for tests).
	now   func() time.Time
	reads int
}

type cachedFile struct {
	sig  fileSig
	data []byte
	sum  [sha256.Size]byte
}

type fileSig struct {
	dev, ino     uint64
	mode         uint32
	size         int64
	mtime, ctime syscall.Timespec
}

func sigOf(st *syscall.Stat_t) fileSig {
	return fileSig{dev: uint64(st.Dev), ino: uint64(st.Ino), mode: uint32(st.Mode), size: int64(st.Size), mtime: st.Mtim, ctime: st.Ctim}
}

// settle is how much older than a read a file's times must be for it to
// be kept: more than the file system's timestamp granularity. Times
// with nanoseconds come from a file system that keeps them, whose times
// are the kernel's coarse clock (a tick, at most 10 ms); times in whole
// seconds may come from one that keeps seconds (FAT: two).
const (
	settle        = 50 * time.Millisecond
	settleSeconds = 3 * time.Second
)

// maxCached bounds the files a Cache keeps; past it, it starts again.
const maxCached = 256

// ReadFile is the package's ReadFile, and the SHA-256 of what it
// returns. The bytes are the caller's own (a copy of those kept).
func (c *Cache) ReadFile(name string, max int64) ([]byte, [sha256.Size]byte, error) {
	var st syscall.Stat_t
	if c != nil && noEINTR(func() error { return syscall.Stat(name, &st) }) == nil {
		c.mu.Lock()
		e, ok := c.files[name]
		c.mu.Unlock()
		if ok && e.sig == sigOf(&st) && int64(len(e.data)) <= max {
			return bytes.Clone(e.data), e.sum, nil
		}
	}
	read := time.Now()
	if c != nil && c.now != nil {
		read = c.now()
	}
	b, err := readFile(name, max, &st)
	if err != nil {
		return nil, [sha256.Size]byte{}, err
	}
	if c != nil {
		c.mu.Lock()
		c.reads++
		c.mu.Unlock()
	}
	sum := sha256.Sum256(b)
	if c != nil && int64(len(b)) == int64(st.Size) && settled(&st, read) {
		c.mu.Lock()
		if c.files == nil || len(c.files) >= maxCached {
			c.files = map[string]cachedFile{}
		}
		c.files[name] = cachedFile{sig: sigOf(&st), data: bytes.Clone(b), sum: sum}
		c.mu.Unlock()
	}
	return b, sum, nil
}

// settled reports whether st's modification and change times are settle
// before read.
func settled(st *syscall.Stat_t, read time.Time) bool {
	limit := read.Add(-settle)
	if st.Mtim.Nsec == 0 || st.Ctim.Nsec == 0 {
		limit = read.Add(-settleSeconds)
	}
	return time.Unix(st.Mtim.Unix()).Before(limit) && time.Unix(st.Ctim.Unix()).Before(limit)
}
