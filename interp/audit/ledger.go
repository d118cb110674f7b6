package audit

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/guardrun/guardrun/taint"
)

// Ledger is the audit ledger of one project root. Writing is safe from any
// number of goroutines and processes at once; the index is rebuilt
// incrementally as the file grows, so records written earlier in the same
// run, or by another process, are seen by the next Lookup.
type Ledger struct {
	root *os.Root
	now  func() time.Time
	// sync makes every record durable before Record returns, so that a
	// crash cannot keep a written file while losing the record written
	// before it.
	sync bool

	mu sync.Mutex
	// offset is how much of the file the index covers; tail holds the
	// last bytes before offset, to notice a file that was rewritten
	// rather than extended.
	offset int64
	tail   []byte
	// index maps an absolute path to the descriptor its records restore.
	// A path with records whose descriptors are all empty is present with
	// an empty descriptor: a later clean write must still be recorded.
	index map[string]taint.Descriptor
}

// New returns the ledger under root, the project root opened with
// os.OpenRoot (so the ledger, too, stays confined to it). Nothing is read
// or created until the first Record or Lookup.
func New(root *os.Root) *Ledger {
	return &Ledger{root: root, now: time.Now, sync: true}
}

// Record appends the record of writing a value with descriptor d to the
// absolute path abs (appendMode for `append`). The line goes to the file
// in one write(2) on a descriptor opened with O_APPEND, so concurrent
// writers never interleave or tear lines. Callers record before writing
// the file itself: when Record fails the file must not be written, or it
// would later read back without its labels.
func (l *Ledger) Record(abs string, d taint.Descriptor, appendMode bool) error {
	line, err := NewRecord(abs, d, appendMode, l.now()).Encode()
	if err != nil {
		return err
	}
	return l.appendLine(line)
}

func (l *Ledger) appendLine(line []byte) error {
	if err := l.root.MkdirAll(filepath.Dir(RelPath), 0o755); err != nil {
		return err
	}
	f, err := l.root.OpenFile(RelPath, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	n, err := writeOnce(f, line)
	if err == nil && n != len(line) {
		err = fmt.Errorf("short write to %s (%d of %d bytes)", RelPath, n, len(line))
	}
	if err == nil && l.sync {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// writeOnce writes b with exactly one write(2) call. os.File.Write would
// retry a partial write with a second call, and another writer's record
// could land between the two.
func writeOnce(f *os.File, b []byte) (int, error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return 0, err
	}
	var n int
	var werr error
	err = rc.Write(func(fd uintptr) bool {
		for {
			n, werr = syscall.Write(int(fd), b)
			// EINTR means nothing was written, so trying again cannot
			// split the line.
			if werr != syscall.EINTR {
				return true
			}
		}
	})
	if err != nil {
		return 0, err
	}
	if n < 0 {
		n = 0
	}
	return n, werr
}

// Lookup returns the descriptor the ledger restores for the absolute path
// abs and whether the ledger has any record for it. The descriptor is the
// last non-append record for the path unioned with every append record
// after it (or the union of all append records when there is no
// overwrite).
//
// PORT: mlld 2.0.5 keeps only the last record of a path, so a second
// append with other labels hides the labels of the first, although both
// pieces of data are in the file; we union appends instead.
//
// A ledger that exists but cannot be read is an error, never "no
// records": the caller cannot tell what the file's labels are.
func (l *Ledger) Lookup(abs string) (taint.Descriptor, bool, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.refresh(); err != nil {
		return taint.Descriptor{}, false, fmt.Errorf("reading the audit ledger %s: %w", RelPath, err)
	}
	d, ok := l.index[filepath.Clean(abs)]
	return d, ok, nil
}

// refresh brings the index up to date with the file. The ledger only
// grows, so normally only the bytes after offset are read; when it
// shrank, or the bytes before offset are not those the index was built
// from (it was rewritten), the index is rebuilt from the start.
func (l *Ledger) refresh() error {
	f, err := l.root.Open(RelPath)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		// No ledger (or a .mlld/sec that is not a directory, which cannot
		// hold one): no file has records.
		l.reset()
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	size := st.Size()
	if size == l.offset && l.index != nil {
		return nil
	}
	start := l.offset
	if size < start || (start > 0 && !l.continues(f)) {
		l.reset()
		start = 0
	}
	if l.index == nil {
		l.index = map[string]taint.Descriptor{}
	}
	buf := make([]byte, size-start)
	n, err := f.ReadAt(buf, start)
	if err != nil && err != io.EOF {
		return err
	}
	buf = buf[:n]
	consumed := 0
	for consumed < len(buf) {
		i := bytes.IndexByte(buf[consumed:], '\n')
		if i < 0 {
			// A last line without a newline is either a record still being
			// written, which cannot parse yet (no proper prefix of a JSON
			// object is one), or a finished record from a tool that did
			// not end it: take it when it parses.
			if e, ok := parseLine(buf[consumed:]); ok {
				l.apply(e)
				consumed = len(buf)
			}
			break
		}
		if e, ok := parseLine(buf[consumed : consumed+i]); ok {
			l.apply(e)
		}
		consumed += i + 1
	}
	l.offset = start + int64(consumed)
	if consumed > 0 {
		// The tail is compared with the file on the next refresh; it
		// spans the previous tail when little was read this time.
		joined := append(l.tail, buf[:consumed]...)
		l.tail = append([]byte(nil), joined[max(0, len(joined)-tailSize):]...)
	}
	return nil
}

// tailSize is how many bytes before offset a refresh compares: more than
// a timestamp, so two records rarely share it unless the file is the same.
const tailSize = 256

// continues reports whether the file still holds, just before offset, the
// bytes the index last read there.
func (l *Ledger) continues(f *os.File) bool {
	if int64(len(l.tail)) > l.offset {
		return false
	}
	b := make([]byte, len(l.tail))
	_, err := f.ReadAt(b, l.offset-int64(len(b)))
	return err == nil && bytes.Equal(b, l.tail)
}

func (l *Ledger) reset() {
	l.offset = 0
	l.tail = nil
	l.index = map[string]taint.Descriptor{}
}

func (l *Ledger) apply(e entry) {
	if e.appendMode {
		l.index[e.path] = l.index[e.path].Merge(e.desc)
		return
	}
	l.index[e.path] = e.desc
}
