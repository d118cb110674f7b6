package hook

import (
	"errors"
	"os"
	"sync"

	"github.com/guardrun/guardrun/agent"
)

// LogWriter is the decision log of a process that lives for many
// decisions: one file descriptor, one write per record (as every hook
// process writes, so records of a server and of hook processes never tear
// each other's lines), and the size check a hook process makes when it
// opens the log made as it grows (agent.OpenLog rotates). Nothing is
// buffered: a record is in the file when Write returns.
type LogWriter struct {
	mu   sync.Mutex
	path string
	max  int64
	f    *os.File
	n    int64
}

// OpenLogWriter opens the log at path as agent.OpenLog does (0600, in a
// 0700 directory; maxBytes 0 is the default size, negative never
// rotates).
func OpenLogWriter(path string, maxBytes int64) (*LogWriter, error) {
	if maxBytes == 0 {
		maxBytes = agent.DefaultLogMaxBytes
	}
	w := &LogWriter{path: path, max: maxBytes}
	if err := w.open(); err != nil {
		return nil, err
	}
	return w, nil
}

func (w *LogWriter) open() error {
	f, err := agent.OpenLog(w.path, w.max)
	if err != nil {
		return err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return errors.New("decision log: " + err.Error())
	}
	w.f, w.n = f, st.Size()
	return nil
}

// Write appends one record. When the file was rotated by another
// process, or this one grew past the limit, the log is opened again
// first (rotating it when full).
func (w *LogWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.f == nil {
		return 0, errors.New("decision log: closed")
	}
	if w.max > 0 && w.n >= w.max || w.moved() {
		old := w.f
		if err := w.open(); err != nil {
			// Keep writing where we did: a record is never dropped for a
			// rotation that failed.
			w.f = old
		} else {
			old.Close()
		}
	}
	n, err := w.f.Write(b)
	w.n += int64(n)
	return n, err
}

// moved reports whether the log's path no longer names the open file
// (another process rotated it).
func (w *LogWriter) moved() bool {
	cur, err := os.Stat(w.path)
	if err != nil {
		return true
	}
	st, err := w.f.Stat()
	return err == nil && !os.SameFile(cur, st)
}

// Close closes the file; later writes fail.
func (w *LogWriter) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.f == nil {
		return nil
	}
	err := w.f.Close()
	w.f = nil
	return err
}
