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
	// rel is the ledger file's path under root; private ledgers are
	// created owner-only (0700 directories, 0600 file).
	rel     string
	private bool
	now     func() time.Time
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
	// index maps a file key (the base-relative path of records that have
	// one, else the absolute path) to the descriptor its records restore.
	// A path with records whose descriptors are all empty is present with
	// an empty descriptor: a later clean write must still be recorded.
	index map[string]taint.Descriptor
	// hashes maps the SHA-256 of a file's content after a labelled write
	// to the union of the labels written with that content, so that the
	// same content read under another name (a case variant, a copy in a
	// moved project) keeps them.
	hashes map[string]taint.Descriptor
}

// New returns the ledger under root, the project root opened with
// os.OpenRoot (so the ledger, too, stays confined to it). Nothing is read
// or created until the first Record or Lookup.
func New(root *os.Root) *Ledger {
	return &Ledger{root: root, rel: RelPath, now: time.Now, sync: true}
}

// NewPrivate returns an owner-only ledger at rel under root: the one a
// run keeps outside its base directory, where the commands it runs in
// that directory do not write.
func NewPrivate(root *os.Root, rel string) *Ledger {
	return &Ledger{root: root, rel: rel, private: true, now: time.Now, sync: true}
}

// Write is one file write to record.
type Write struct {
	// Path is the absolute path of the written file.
	Path string
	// Rel is the file's path relative to the base directory, symbolic
	// links resolved; "" when unknown. Records that have it are found by
	// it, whatever path reached the file and wherever the base lies.
	Rel string
	// SHA256 is the hex SHA-256 of the file's content after the write;
	// "" when unknown.
	SHA256 string
	// Desc is the descriptor of the written data.
	Desc taint.Descriptor
	// Append marks an `append`: it adds to what came before.
	Append bool
}

// Key names a file to look up: by Rel when records have it, else by
// Path, and by the SHA-256 of its content.
type Key struct {
	Path, Rel, SHA256 string
}

// Record appends the record of writing a value with descriptor d to the
// absolute path abs (appendMode for `append`). The line goes to the file
// in one write(2) on a descriptor opened with O_APPEND, so concurrent
// writers never interleave or tear lines. Callers record before writing
// the file itself: when Record fails the file must not be written, or it
// would later read back without its labels.
func (l *Ledger) Record(abs string, d taint.Descriptor, appendMode bool) error {
	return l.RecordWrites(Write{Path: abs, Desc: d, Append: appendMode})
}

// RecordWrites appends the records of ws, all in one write(2) (see
// Record).
func (l *Ledger) RecordWrites(ws ...Write) error {
	if len(ws) == 0 {
		return nil
	}
	now := l.now()
	var lines []byte
	for _, w := range ws {
		r := NewRecord(w.Path, w.Desc, w.Append, now)
		r.Rel, r.SHA256 = filepath.ToSlash(w.Rel), w.SHA256
		line, err := r.Encode()
		if err != nil {
			return err
		}
		lines = append(lines, line...)
	}
	return l.appendLine(lines)
}

func (l *Ledger) appendLine(line []byte) error {
	dirPerm, filePerm := os.FileMode(0o755), os.FileMode(0o644)
	if l.private {
		dirPerm, filePerm = 0o700, 0o600
	}
	if err := l.root.MkdirAll(filepath.Dir(l.rel), dirPerm); err != nil {
		return err
	}
	f, err := l.root.OpenFile(l.rel, os.O_APPEND|os.O_CREATE|os.O_WRONLY, filePerm)
	if err != nil {
		return err
	}
	n, err := writeOnce(f, line)
	if err == nil && n != len(line) {
		err = fmt.Errorf("short write to %s (%d of %d bytes)", l.rel, n, len(line))
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
	return l.LookupKey(Key{Path: abs})
}

// LookupKey is Lookup for a file named by k: the records of k.Rel when
// there are any, else those of k.Path, unioned with every labelled write
// of the same content (k.SHA256).
func (l *Ledger) LookupKey(k Key) (taint.Descriptor, bool, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.refresh(); err != nil {
		return taint.Descriptor{}, false, fmt.Errorf("reading the audit ledger %s: %w", l.rel, err)
	}
	d, ok := taint.Descriptor{}, false
	if k.Rel != "" {
		d, ok = l.index[filepath.ToSlash(k.Rel)]
	}
	if !ok && k.Path != "" {
		d, ok = l.index[filepath.Clean(k.Path)]
	}
	if h, found := l.hashes[k.SHA256]; found && k.SHA256 != "" {
		d, ok = d.Merge(h), true
	}
	return d, ok, nil
}

// Labelled returns every file key whose records restore labels, with the
// descriptor they restore. Keys are base-relative (slash-separated) paths,
// or absolute paths for records without one.
func (l *Ledger) Labelled() (map[string]taint.Descriptor, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.refresh(); err != nil {
		return nil, fmt.Errorf("reading the audit ledger %s: %w", l.rel, err)
	}
	out := map[string]taint.Descriptor{}
	for k, d := range l.index {
		if len(d.Labels()) > 0 {
			out[k] = d
		}
	}
	return out, nil
}

// refresh brings the index up to date with the file. The ledger only
// grows, so normally only the bytes after offset are read; when it
// shrank, or the bytes before offset are not those the index was built
// from (it was rewritten), the index is rebuilt from the start.
func (l *Ledger) refresh() error {
	f, err := l.root.Open(l.rel)
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
		l.hashes = map[string]taint.Descriptor{}
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
	l.hashes = map[string]taint.Descriptor{}
}

func (l *Ledger) apply(e entry) {
	if e.hash != "" && !e.desc.IsZero() {
		l.hashes[e.hash] = l.hashes[e.hash].Merge(e.desc)
	}
	if e.appendMode {
		l.index[e.path] = l.index[e.path].Merge(e.desc)
		return
	}
	l.index[e.path] = e.desc
}
