package agent

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/guardrun/guardrun/internal/rawfile"
	"github.com/guardrun/guardrun/internal/xdgdir"
)

// FileStore keeps each session in its own journal file, for hook
// processes that live one event each. An update holds an exclusive flock
// on the session's lock file for its whole read-modify-write: it replays
// the journal (a snapshot, then deltas), runs fn, and appends one record
// of what fn changed with a single write(2), so an update costs what it
// changes, not what the session holds. When the deltas outgrow the
// snapshot the journal is compacted: a new snapshot is written to a
// temporary file, synced and renamed over it.
//
// Appends are not synced: a process that crashes loses nothing it wrote
// (the kernel has the write), but an operating-system crash may lose the
// last records or tear the last one. A torn or corrupt journal is an
// error naming the file (the engine denies), never an empty session.
//
// Files are 0600 in a 0700 directory; a session's file name is a hash of
// its id (ids are not trusted as paths). The store holds fingerprints,
// never raw text. Records are checksummed under a random per-user key
// (the file .key in Dir, created on first use), and the seen index beside
// Dir (seen.go) remembers every live session's last seq: a session whose
// journal vanished or went backwards comes back tainted, not new.
type FileStore struct {
	// Dir holds the session files.
	Dir string
	// TTL expires sessions not updated for that long (0: 24h); an expired
	// session starts afresh, and Sweep removes expired files.
	TTL time.Duration
	// MaxBytes caps a session file (0: 16 MiB); a larger file is an error.
	MaxBytes int64
	// KeepDecoded keeps each session as last written in memory, for a
	// long-lived process deciding many calls: an update whose
	// journal is still the one this store last wrote (same file, size,
	// times and last bytes, checked under the session's lock) starts
	// from it instead of replaying the journal. A journal another
	// process wrote since is replayed as usual.
	KeepDecoded bool
	now         func() time.Time
	sweepOnce   sync.Once
	keptMu      sync.Mutex
	kept        map[string]*keptSession
	keyOnce     sync.Once
	key         sumKey
	keyErr      error
}

// keyFile is the name of the checksum key in a store's directory.
const keyFile = ".key"

// loadKey reads the store's checksum key, creating it (16 random bytes,
// 0600) when there is none. A key of the wrong size is an error: every
// journal would fail its checksum anyway, and a new key must not be made
// over one that an attacker truncated.
func (f *FileStore) loadKey() (sumKey, error) {
	f.keyOnce.Do(func() {
		path := filepath.Join(f.Dir, keyFile)
		b, err := os.ReadFile(path)
		if errors.Is(err, fs.ErrNotExist) {
			b, err = f.createKey(path)
		}
		if err == nil && len(b) != 16 {
			err = fmt.Errorf("%s is %d bytes, not 16", path, len(b))
		}
		if err != nil {
			f.keyErr = fmt.Errorf("session store: checksum key: %w", err)
			return
		}
		f.key = sumKey{binary.LittleEndian.Uint64(b), binary.LittleEndian.Uint64(b[8:])}
	})
	return f.key, f.keyErr
}

// createKey writes a new key to a temporary file and links it to path,
// so that of processes racing to create it all read the one that won.
func (f *FileStore) createKey(path string) ([]byte, error) {
	var k [16]byte
	if _, err := rand.Read(k[:]); err != nil {
		return nil, err
	}
	tmp, err := os.CreateTemp(f.Dir, ".tmp-key-*")
	if err != nil {
		return nil, err
	}
	_, werr := tmp.Write(k[:])
	if werr == nil {
		werr = tmp.Sync()
	}
	if cerr := tmp.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		if err := os.Link(tmp.Name(), path); err != nil && !errors.Is(err, fs.ErrExist) {
			werr = err
		}
	}
	os.Remove(tmp.Name())
	if werr != nil {
		return nil, werr
	}
	return os.ReadFile(path)
}

// keptSession is a session as a KeepDecoded store last wrote it, with
// what identifies the journal it wrote.
type keptSession struct {
	id      journalID
	session *Session
	shape   journalShape
	// base is reused as the before of the session's next update's diff;
	// printsSum is the digest of its fingerprints as written, when
	// printsKnown (an append's diff computed it).
	base        *diffBase
	printsSum   uint64
	printsKnown bool
}

// journalID identifies a journal's content well enough to tell whether
// another process wrote it since: an append changes its size and
// modification time, a compaction its inode; the last bytes guard
// against a reused inode of the same size written within one tick of
// the file clock.
type journalID struct {
	dev, ino, size uint64
	mtime          int64
	tail           [32]byte
}

// maxKept bounds the sessions a KeepDecoded store keeps; past it one is
// dropped (and replayed from its journal when it is next updated).
const maxKept = 256

// A session's files: base+journalExt is its journal, base+".lock" its
// lock; base+".json" is the whole-session JSON file of earlier versions,
// read once and replaced by a journal.
const (
	journalExt = ".journal"
	legacyExt  = ".json"
	// sweepMarker's modification time is when the directory was last
	// swept: a process sweeps only when that is sweepEvery ago, instead
	// of listing the directory on every hook call.
	sweepMarker = ".swept"
	sweepEvery  = time.Hour
	// A journal is compacted when it holds maxDeltas deltas, or when
	// they outgrow half its snapshot (and compactMin bytes): replaying it
	// then costs at most half again the session, and a compaction (a
	// snapshot written and synced) comes once in many updates.
	maxDeltas  = 128
	compactMin = 16 << 10
)

// DefaultStateDir is where the file store lives by default:
// $XDG_STATE_HOME/guardrun/sessions, or ~/.local/state/guardrun/sessions.
func DefaultStateDir() (string, error) {
	dir, err := xdgdir.State()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "sessions"), nil
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
	return &FileStore{Dir: dir, now: nowUTC}, nil
}

func (f *FileStore) path(id string) string {
	sum := sha256.Sum256([]byte(id))
	return filepath.Join(f.Dir, hex.EncodeToString(sum[:16]))
}

func (f *FileStore) clock() time.Time {
	if f.now == nil {
		return nowUTC()
	}
	return f.now()
}

// nowUTC is a file store's clock: a session's times are saved with their
// zone offset, and the local zone's offset would load the zone database
// in every hook process for nothing.
func nowUTC() time.Time { return time.Now().UTC() }

// Update implements Store.
func (f *FileStore) Update(ctx context.Context, id string, fn func(*Session) error) error {
	f.sweepOnce.Do(f.sweepIfDue)
	key, err := f.loadKey()
	if err != nil {
		return err
	}
	base := f.path(id)
	name, _ := seenName(base)
	lock, err := lockFile(ctx, base+".lock")
	if err != nil {
		return err
	}
	defer func() {
		syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)
		lock.Close()
	}()
	j, err := f.open(base, key)
	if err != nil {
		return err
	}
	if j.file != nil {
		defer j.file.Close()
	}
	prev, err := f.seen(name)
	if err != nil {
		return err
	}
	if f.KeepDecoded {
		// Whatever fails below leaves the journal to be replayed.
		f.forget(base)
	}
	now := f.clock()
	// The lock file's time says the session is in use (Sweep keeps it).
	_ = os.Chtimes(base+".lock", now, now)
	s := j.session
	var before *Session
	var db *diffBase
	fresh := s == nil || s.ID != id || now.Sub(s.Updated) > ttlOr(f.TTL)
	live := prev.found && now.Sub(time.Unix(prev.updated, 0)) <= ttlOr(f.TTL)
	switch {
	case live && (fresh || int64(s.Seq) < prev.seq || j.shape.unkeyed || j.legacy):
		// The index saw this session within the TTL, but its journal
		// is gone, expired, another's or behind: it was deleted or
		// rolled back, and what the session read is still in the
		// agent's context. A journal of an earlier version with
		// unkeyed checksums (2, 3) or a legacy JSON file is read only
		// for a session the index has not seen, one from before the
		// upgrade: once seen, the session was written in a keyed
		// format, and such a file is a forgery. A keyed journal of an
		// earlier version (4) is the session's own, kept across an
		// upgrade in the middle of it.
		s = vanished(id, now, prev.seq)
	case fresh:
		s = &Session{ID: id, Created: now}
	case j.spans != nil:
		// The journal stands in for the origins, fingerprints and
		// calls, so that a long session's are not copied on every
		// update.
		before = cloneRest(s)
	case j.kept != nil:
		// A kept session's diff reuses the arrays of its last one, and
		// the digest of its fingerprints that diff computed.
		if j.kept.base == nil {
			j.kept.base = new(diffBase)
		}
		if !j.kept.printsKnown {
			j.kept.printsSum = digestPrints(s.Prints)
		}
		db = j.kept.base
		before = db.fill(s, j.kept.printsSum)
	case j.file != nil:
		db = new(diffBase)
		before = db.fill(s, digestPrints(s.Prints))
	}
	if err := fn(s); err != nil {
		return err
	}
	s.Updated = now
	if err := f.save(j, base, s, before, db, key); err != nil {
		return err
	}
	if !prev.found || prev.seq != int64(s.Seq) || prev.updated != now.Unix() {
		return f.see(ctx, name, prev, s.Seq, now)
	}
	return nil
}

// save writes s to base's journal j: one appended record of what changed
// since before (db's, when it is one), or a compaction.
func (f *FileStore) save(j *journal, base string, s, before *Session, db *diffBase, key sumKey) error {
	if before != nil {
		rec := appendEdit(nil, before, j.spans, s, key)
		size := j.size + int64(len(rec))
		if !j.shape.stale && j.shape.deltas < maxDeltas && size-int64(j.shape.snapEnd) <= max(int64(j.shape.snapEnd)/2, compactMin) && size <= f.maxBytes()/2 {
			if err := j.append(rec); err != nil {
				return err
			}
			k := &keptSession{session: s, shape: journalShape{snapEnd: j.shape.snapEnd, deltas: j.shape.deltas + 1}, base: db}
			if db != nil && j.spans == nil {
				// The diff hashed all of s's fingerprints (printsDigest.same).
				k.printsSum, k.printsKnown = db.prints.whole, true
			}
			f.keep(base, j.file, k)
			return nil
		}
	}
	n, err := f.compact(j.path, s, key)
	if err != nil {
		return err
	}
	if j.legacy {
		os.Remove(base + legacyExt)
	}
	if f.KeepDecoded {
		if file, err := os.Open(j.path); err == nil {
			f.keep(base, file, &keptSession{session: s, shape: journalShape{snapEnd: n}, base: db})
			file.Close()
		}
	}
	return nil
}

// keep remembers k's session as the session of file, base's journal just
// written.
func (f *FileStore) keep(base string, file *os.File, k *keptSession) {
	if !f.KeepDecoded {
		return
	}
	id, err := identify(file)
	if err != nil {
		return
	}
	f.keptMu.Lock()
	defer f.keptMu.Unlock()
	if f.kept == nil {
		f.kept = map[string]*keptSession{}
	}
	if len(f.kept) >= maxKept {
		for k := range f.kept {
			delete(f.kept, k)
			break
		}
	}
	k.id = id
	f.kept[base] = k
}

// forget drops base's kept session.
func (f *FileStore) forget(base string) {
	f.keptMu.Lock()
	delete(f.kept, base)
	f.keptMu.Unlock()
}

// recall returns base's kept session when file is still the journal it
// was kept with.
func (f *FileStore) recall(base string, file *os.File) (*keptSession, bool) {
	f.keptMu.Lock()
	k := f.kept[base]
	f.keptMu.Unlock()
	if k == nil {
		return nil, false
	}
	id, err := identify(file)
	return k, err == nil && id == k.id
}

// identify reads what identifies an open journal's content.
func identify(file *os.File) (journalID, error) {
	st, err := file.Stat()
	if err != nil {
		return journalID{}, err
	}
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return journalID{}, errors.New("no inode")
	}
	id := journalID{dev: uint64(sys.Dev), ino: uint64(sys.Ino), size: uint64(st.Size()), mtime: st.ModTime().UnixNano()}
	off := max(st.Size()-int64(len(id.tail)), 0)
	if _, err := file.ReadAt(id.tail[:st.Size()-off], off); err != nil {
		return journalID{}, err
	}
	return id, nil
}

func (f *FileStore) maxBytes() int64 {
	if f.MaxBytes <= 0 {
		return 16 << 20
	}
	return f.MaxBytes
}

// journal is a session's journal as an update found it: file is nil when
// there is none yet (session nil, or read from a legacy file).
type journal struct {
	path    string
	file    *os.File
	size    int64
	shape   journalShape
	session *Session
	// spans locate the session's origins, fingerprints and calls in
	// the journal just read (nil for a kept or legacy session).
	spans  *spans
	legacy bool
	// kept is the kept session it is, when it is one.
	kept *keptSession
}

// open reads base's journal, or else its legacy JSON file. A journal
// that cannot be read whole is an error telling how to reset it.
func (f *FileStore) open(base string, key sumKey) (*journal, error) {
	j := &journal{path: base + journalExt}
	file, err := rawfile.OpenFile(j.path, os.O_RDWR|os.O_APPEND, 0)
	if errors.Is(err, fs.ErrNotExist) {
		j.session, err = f.readLegacy(base + legacyExt)
		j.legacy = j.session != nil
		return j, err
	}
	if err != nil {
		return nil, fmt.Errorf("session store: cannot read: %w", err)
	}
	if k, ok := f.recall(base, file); ok {
		j.session, j.shape, j.size, j.file, j.kept = k.session, k.shape, int64(k.id.size), file, k
		return j, nil
	}
	if err := j.read(file, f.maxBytes(), key); err != nil {
		file.Close()
		return nil, err
	}
	j.file = file
	return j, nil
}

func (j *journal) read(file *os.File, maxBytes int64, key sumKey) error {
	st, err := file.Stat()
	if err != nil {
		return fmt.Errorf("session store: cannot read %s: %w", j.path, err)
	}
	if st.Size() > maxBytes {
		return fmt.Errorf("session store: %s is %d bytes, over the %d-byte cap; delete it to reset the session", j.path, st.Size(), maxBytes)
	}
	data := make([]byte, st.Size())
	if _, err := io.ReadFull(file, data); err != nil {
		return fmt.Errorf("session store: cannot read %s: %w", j.path, err)
	}
	j.session, j.spans, j.shape, err = decodeSpans(data, true, key)
	if err != nil {
		return fmt.Errorf("session store: %s is corrupt (%v); delete it to reset the session, which then counts as having seen secret and untrusted data", j.path, err)
	}
	j.size = int64(len(data))
	return nil
}

// append adds one record with a single write. A failed write (a full
// disk) is cut off again, so that the journal stays whole.
func (j *journal) append(rec []byte) error {
	if _, err := j.file.Write(rec); err != nil {
		j.file.Truncate(j.size)
		return fmt.Errorf("session store: cannot write %s: %w", j.path, err)
	}
	return nil
}

// compact writes s as a journal of one snapshot, replacing path. Unlike
// an append it is synced before the rename: it replaces the whole file,
// so an operating-system crash must not leave an empty one.
func (f *FileStore) compact(path string, s *Session, key sumKey) (int, error) {
	data := appendEdit([]byte(journalMagic), nil, nil, s, key)
	tmp, err := os.CreateTemp(f.Dir, ".tmp-*")
	if err != nil {
		return 0, fmt.Errorf("session store: cannot write: %w", err)
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
		return 0, fmt.Errorf("session store: cannot write: %w", werr)
	}
	return len(data), nil
}

// lockFile opens and exclusively locks path. A lock file Sweep removed
// between the open and the lock is stale (another process may lock the
// new one): it is dropped and the lock taken again.
func lockFile(ctx context.Context, path string) (*os.File, error) {
	for {
		lock, err := rawfile.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
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

// readLegacy reads a session file of the JSON store this one replaced,
// so that a session under way keeps what it has seen across the upgrade.
func (f *FileStore) readLegacy(path string) (*Session, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("session store: cannot read: %w", err)
	}
	if int64(len(data)) > f.maxBytes() {
		return nil, fmt.Errorf("session store: %s is %d bytes, over the %d-byte cap; delete it to reset the session", path, len(data), f.maxBytes())
	}
	var s Session
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("session store: %s is corrupt (%v); delete it to reset the session", path, err)
	}
	return &s, nil
}

// sweepIfDue sweeps when the marker says the last sweep is sweepEvery
// (or the TTL, when shorter) ago, and marks this one.
func (f *FileStore) sweepIfDue() {
	marker := filepath.Join(f.Dir, sweepMarker)
	now := f.clock()
	every := min(sweepEvery, ttlOr(f.TTL))
	if st, err := os.Stat(marker); err == nil {
		if age := now.Sub(st.ModTime()); age < every && age > -every {
			return
		}
	}
	if file, err := os.OpenFile(marker, os.O_CREATE|os.O_WRONLY, 0o600); err == nil {
		file.Close()
		_ = os.Chtimes(marker, now, now)
	}
	_ = f.Sweep()
}

// Sweep removes sessions not updated within the TTL (their journal, a
// legacy JSON file, their lock file) when no process holds their lock,
// lock files left alone, and temporary files a crashed writer left.
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
		switch name := e.Name(); {
		case strings.HasSuffix(name, journalExt), strings.HasSuffix(name, legacyExt), strings.HasSuffix(name, ".lock"):
			base := strings.TrimSuffix(p, filepath.Ext(p))
			f.sweepSession(base, cut)
		case strings.HasPrefix(name, ".tmp-") && info.ModTime().Before(now.Add(-time.Hour)):
			os.Remove(p)
		}
	}
	f.sweepSeen(cut)
	return nil
}

// sweepSession removes an expired session's files under its lock, so
// that an update never appends to a journal that is gone; a session in
// use (locked, or touched since the listing) is left alone.
func (f *FileStore) sweepSession(base string, cut time.Time) {
	lockPath := base + ".lock"
	fresh := func(p string) bool {
		st, err := os.Stat(p)
		return err == nil && !st.ModTime().Before(cut)
	}
	_, err := os.Stat(lockPath)
	created := errors.Is(err, fs.ErrNotExist)
	lock, err := os.OpenFile(lockPath, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return
	}
	defer lock.Close()
	unlock, ok := tryLockCurrent(lock, lockPath)
	if !ok {
		return
	}
	defer unlock()
	if fresh(base+journalExt) || fresh(base+legacyExt) || (!created && fresh(lockPath)) {
		return
	}
	os.Remove(base + journalExt)
	os.Remove(base + legacyExt)
	os.Remove(lockPath)
}

// tryLockCurrent takes f's exclusive lock without waiting, when path
// still names f (a sweep that unlinked and recreated it would otherwise
// be locked out of step): ok is false when the lock is held elsewhere or
// path names another file by now. unlock releases it.
func tryLockCurrent(f *os.File, path string) (unlock func(), ok bool) {
	if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) != nil {
		return nil, false
	}
	unlock = func() { syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }
	held, err1 := f.Stat()
	cur, err2 := os.Stat(path)
	if err1 != nil || err2 != nil || !os.SameFile(held, cur) {
		unlock()
		return nil, false
	}
	return unlock, true
}
