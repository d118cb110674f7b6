package agent

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/guardrun/guardrun/internal/rawfile"
)

// The seen index is a FileStore's evidence that a session existed: a file
// beside the store's directory (sessions.seen next to sessions/, so that
// deleting the directory or a journal leaves it), of 32-byte records:
// the 16 bytes of a session's file name, then its last seq and when it
// was last updated (Unix seconds), little-endian. A session whose record
// is live (updated within the TTL) but whose journal is missing, expired,
// of another id or behind the record's seq vanished or was rolled back:
// it starts again tainted (vanishedLabels), never as new.
//
// An update reads the index without a lock (a record is rewritten in
// place with one 16-byte pwrite) and writes its record under an exclusive
// flock; Sweep rewrites the index without expired records (a temporary
// file renamed over it), so a writer checks, once it holds the lock, that
// the file it opened is still the index. Nothing is synced: like the
// journal's appends, a process crash loses nothing.
const (
	seenExt    = ".seen"
	seenRecord = 32
)

// vanishedLabels are the context-wide labels of a session whose state
// vanished: whatever it read is still in the agent's context.
var vanishedLabels = []string{"secret", "untrusted"}

// vanishedWhy is the origin's why of those labels.
const vanishedWhy = "session state vanished"

// seenEntry is a session's record in the index, and where it is: at off
// in the file index.
type seenEntry struct {
	found        bool
	seq, updated int64
	off          int64
	index        os.FileInfo
}

func (f *FileStore) seenPath() string {
	dir := filepath.Clean(f.Dir)
	return filepath.Join(filepath.Dir(dir), filepath.Base(dir)+seenExt)
}

// seenName is the index's key of a session: its file name's bytes.
func seenName(base string) ([16]byte, bool) {
	var n [16]byte
	b := filepath.Base(base)
	if len(b) != 32 {
		return n, false
	}
	for i := range n {
		hi, ok1 := unhex(b[2*i])
		lo, ok2 := unhex(b[2*i+1])
		if !ok1 || !ok2 {
			return n, false
		}
		n[i] = hi<<4 | lo
	}
	return n, true
}

func unhex(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	}
	return 0, false
}

// findSeen is the offset of name's record in data, or -1.
func findSeen(data []byte, name [16]byte) int {
	for off := 0; off+seenRecord <= len(data); off += seenRecord {
		if string(data[off:off+16]) == string(name[:]) {
			return off
		}
	}
	return -1
}

// seen reads name's record. A missing index holds no record; one that
// cannot be read is an error (the engine denies).
func (f *FileStore) seen(name [16]byte) (seenEntry, error) {
	file, err := rawfile.OpenFile(f.seenPath(), os.O_RDONLY, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return seenEntry{}, nil
	}
	if err != nil {
		return seenEntry{}, fmt.Errorf("session store: cannot read the index of seen sessions: %w", err)
	}
	defer file.Close()
	data, st, err := readSeen(file, f.maxBytes())
	if err != nil {
		return seenEntry{}, err
	}
	off := findSeen(data, name)
	if off < 0 {
		return seenEntry{index: st}, nil
	}
	return seenEntry{found: true, seq: int64(binary.LittleEndian.Uint64(data[off+16:])),
		updated: int64(binary.LittleEndian.Uint64(data[off+24:])), off: int64(off), index: st}, nil
}

// readSeen reads the whole index (up to max bytes) in one read.
func readSeen(file *os.File, max int64) ([]byte, os.FileInfo, error) {
	st, err := file.Stat()
	if err != nil {
		return nil, nil, fmt.Errorf("session store: cannot read the index of seen sessions: %w", err)
	}
	data := make([]byte, min(st.Size(), max))
	if _, err := io.ReadFull(file, data); err != nil {
		return nil, nil, fmt.Errorf("session store: cannot read the index of seen sessions: %w", err)
	}
	return data, st, nil
}

// see writes name's record: seq and updated. prev is what seen read:
// while the index is still that file, its record is where it was (only
// Sweep moves records, by replacing the file), and only this session's
// update, under the session's lock, adds it.
func (f *FileStore) see(ctx context.Context, name [16]byte, prev seenEntry, seq int, updated time.Time) error {
	path := f.seenPath()
	file, err := lockFile(ctx, path)
	if err != nil {
		return fmt.Errorf("session store: cannot write the index of seen sessions: %w", err)
	}
	defer func() {
		syscall.Flock(int(file.Fd()), syscall.LOCK_UN)
		file.Close()
	}()
	var rec [seenRecord]byte
	copy(rec[:], name[:])
	binary.LittleEndian.PutUint64(rec[16:], uint64(seq))
	binary.LittleEndian.PutUint64(rec[24:], uint64(updated.Unix()))
	st, err := file.Stat()
	if err != nil {
		return fmt.Errorf("session store: cannot write the index of seen sessions: %w", err)
	}
	off, end := prev.off, st.Size()/seenRecord*seenRecord
	if !prev.found || prev.index == nil || !os.SameFile(st, prev.index) {
		data, _, err := readSeen(file, f.maxBytes())
		if err != nil {
			return err
		}
		off = int64(findSeen(data, name))
	}
	if off >= 0 {
		_, err = file.WriteAt(rec[16:], off+16)
	} else {
		// A torn record at the end (a crash mid-write) is overwritten.
		_, err = file.WriteAt(rec[:], end)
	}
	if err != nil {
		return fmt.Errorf("session store: cannot write the index of seen sessions: %w", err)
	}
	return nil
}

// sweepSeen drops the records of sessions not updated since cut, unless
// an update holds the index.
func (f *FileStore) sweepSeen(cut time.Time) {
	path := f.seenPath()
	file, err := rawfile.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return
	}
	defer file.Close()
	unlock, ok := tryLockCurrent(file, path)
	if !ok {
		return
	}
	defer unlock()
	data, err := io.ReadAll(file)
	if err != nil {
		return
	}
	out := make([]byte, 0, len(data))
	for off := 0; off+seenRecord <= len(data); off += seenRecord {
		if int64(binary.LittleEndian.Uint64(data[off+24:])) >= cut.Unix() {
			out = append(out, data[off:off+seenRecord]...)
		}
	}
	if len(out) == len(data) {
		return
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".seen-*")
	if err != nil {
		return
	}
	_, werr := tmp.Write(out)
	if cerr := tmp.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(tmp.Name(), path)
	}
	if werr != nil {
		os.Remove(tmp.Name())
	}
}

// vanished is the session that replaces one whose state vanished: new,
// numbered on from the last seq seen, and tainted.
func vanished(id string, now time.Time, seq int64) *Session {
	s := &Session{ID: id, Created: now, Seq: int(seq)}
	i := s.addOrigin(Origin{Seq: int(seq), Event: SessionStart, Labels: append([]string(nil), vanishedLabels...), Why: vanishedWhy}, DefaultLimits)
	s.addContext(i)
	return s
}
