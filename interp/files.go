package interp

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/guardrun/guardrun/ast"
	"github.com/guardrun/guardrun/internal/editdist"
	"github.com/guardrun/guardrun/interp/audit"
	"github.com/guardrun/guardrun/interp/value"
	"github.com/guardrun/guardrun/taint"
)

// files confines what a script reads and writes (imports, <file> loads,
// output and append) to the run's base directory. Paths are checked
// lexically first, for a clear message, and then opened through an os.Root,
// which also refuses symlinks that lead out of the directory.
//
// Labels survive files: a write of labelled data is recorded in the audit
// ledger before the file is written, and a load restores what the ledger
// recorded. There are two ledgers (see ledgers.go): the run's private one
// outside the base directory, which commands run there do not write and
// which is the one trusted, and mlld's .mlld/sec/audit.jsonl under the
// base directory, kept for mlld and for scripts that read it, whose
// records can only add labels.
type files struct {
	base string
	// root is opened on first use (rootMu: a Machine's decisions share
	// their files).
	rootMu sync.Mutex
	root   *os.Root
	err    error
	// realBase is base with symbolic links resolved: ledger keys are
	// relative to it.
	realBase string
	baseOnce sync.Once
	// stateDir is Options.StateDir; see privateLedger.
	stateDir string
	// baseAsRoot is Options.BaseAsRoot: dir: labels and sources of loaded
	// files are rooted at the base directory.
	baseAsRoot bool
	// mirror is .mlld/sec/audit.jsonl, opened with the root; private is
	// opened on first use (under ledgerMu: parallel branches load files).
	// Their indexes live as long as the run.
	ledgerMu  sync.Mutex
	mirror    *audit.Ledger
	private   *audit.Ledger
	stateRoot *os.Root
	// writableProtected are the base-relative paths under protected names
	// (protectedNames) the embedder lets scripts write.
	writableProtected []string
	// maxRead caps the bytes read from one file (the run's string cap).
	maxRead int
}

// baseDir is where a run's relative paths start and commands run: the
// Dir option, else the script's directory, else the working directory.
func baseDir(opts Options, docFile string) string {
	dir := opts.Dir
	if dir == "" && docFile != "" {
		dir = filepath.Dir(docFile)
	}
	if dir == "" {
		dir = "."
	}
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	return dir
}

// scriptDir is where the main script's relative paths start: the directory
// of its file when the name has one, else the base directory (a script
// compiled from memory under a bare name).
func scriptDir(docFile, base string) string {
	dir := filepath.Dir(docFile)
	if docFile == "" || dir == "." {
		return base
	}
	if abs, err := filepath.Abs(dir); err == nil {
		return abs
	}
	return base
}

// errNoBase is why a run without a base directory cannot touch files.
var errNoBase = errors.New("no base directory: use WithDir")

// noBaseError is the error for an operation that needs the base directory
// in a run that has none (Options.NoBaseDir).
func noBaseError(what string, pos ast.Pos) error {
	return &Error{Kind: KindFile, Pos: pos, Err: errNoBase,
		Message: "no base directory: use WithDir (needed for " + what + ")",
		Hint:    "the embedder compiled this script from memory: pass guardrun.WithDir(dir) to Run (or use CompileFile)"}
}

func (f *files) open() (*os.Root, error) {
	if f.base == "" {
		return nil, errNoBase
	}
	f.rootMu.Lock()
	defer f.rootMu.Unlock()
	if f.root == nil && f.err == nil {
		f.root, f.err = os.OpenRoot(f.base)
	}
	return f.root, f.err
}

func (f *files) close() {
	if f.root != nil {
		f.root.Close()
	}
	if f.stateRoot != nil {
		f.stateRoot.Close()
	}
}

// resolve turns path, relative to fromDir unless absolute, into a path
// relative to the base directory, refusing anything outside it.
func (f *files) resolve(fromDir, path string, pos ast.Pos) (rel, abs string, err error) {
	if f.base == "" {
		return "", "", noBaseError("reading or writing "+path, pos)
	}
	abs = path
	if !filepath.IsAbs(abs) {
		if !filepath.IsAbs(fromDir) {
			fromDir = filepath.Join(f.base, fromDir)
		}
		abs = filepath.Join(fromDir, abs)
	}
	abs = filepath.Clean(abs)
	rel, err = filepath.Rel(f.base, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", "", newError(KindFile, pos,
			fmt.Sprintf("scripts may only read and write inside the base directory (%s); choose another with guardrun --dir or the WithDir option", f.base),
			"%s is outside the base directory", path)
	}
	return rel, abs, nil
}

// exists reports, as the error read would give, a path (relative to
// fromDir) that is outside the base directory or that nothing is at.
func (f *files) exists(fromDir, path string, pos ast.Pos) error {
	rel, _, err := f.resolve(fromDir, path, pos)
	if err != nil {
		return err
	}
	root, err := f.open()
	if err != nil {
		return f.ioError(err, path, pos)
	}
	if _, err := root.Stat(rel); err != nil {
		return f.missing(err, root, rel, path, pos)
	}
	return nil
}

// read returns the contents of path (relative to fromDir).
func (f *files) read(fromDir, path string, pos ast.Pos) ([]byte, string, error) {
	rel, abs, err := f.resolve(fromDir, path, pos)
	if err != nil {
		return nil, "", err
	}
	root, err := f.open()
	if err != nil {
		return nil, "", f.ioError(err, path, pos)
	}
	file, err := root.Open(rel)
	if err != nil {
		return nil, "", f.missing(err, root, rel, path, pos)
	}
	b, err := f.readOpen(&openFile{File: file}, path, pos)
	if err != nil {
		return nil, "", err
	}
	return b, abs, nil
}

// openFile is a file opened for reading, with its information when it
// was already looked up (see openImport), else nil.
type openFile struct {
	*os.File
	info fs.FileInfo
}

// readOpen reads and closes file, opened from path, as read does.
func (f *files) readOpen(file *openFile, path string, pos ast.Pos) ([]byte, error) {
	defer file.Close()
	// A file becomes one string: read at most the run's string cap, so a
	// huge file (or a device) is an error, not the process's memory.
	limit := f.maxRead
	if limit <= 0 {
		limit = value.MaxString
	}
	b, err := readLimited(file, limit)
	if err != nil {
		return nil, f.ioError(err, path, pos)
	}
	if len(b) > limit {
		le := value.StringLimitError("reading "+path, limit)
		return nil, &Error{Kind: KindLimit, Pos: pos, Message: le.Message, Hint: le.Hint, Err: le}
	}
	return b, nil
}

// readLimited reads file to its end, or to one byte past limit. A
// regular file's size sizes the buffer (one read instead of a growing
// series: modules and policies are read on every hook call).
func readLimited(file *openFile, limit int) ([]byte, error) {
	size := 512
	st, err := file.info, error(nil)
	if st == nil {
		st, err = file.Stat()
	}
	if err == nil && st.Mode().IsRegular() && st.Size() < int64(limit) {
		size = int(st.Size()) + 1 // +1: the read that sees the end
	}
	b := make([]byte, 0, size)
	r := io.LimitReader(file, int64(limit)+1)
	for {
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
	}
}

// write writes or appends content to path (relative to fromDir), creating
// missing directories. d is the written value's descriptor: when it is not
// empty, or the ledger already has a record for the path (so that
// overwriting a labelled file with clean data reads back clean), the write
// is recorded in the audit ledger first. If the record cannot be written
// the file is not written either: it would later read back without its
// labels.
func (f *files) write(fromDir, path, content string, d taint.Descriptor, appendMode bool, pos ast.Pos) error {
	rel, abs, err := f.resolve(fromDir, path, pos)
	if err != nil {
		return err
	}
	root, err := f.open()
	if err != nil {
		return f.ioError(err, path, pos)
	}
	if f.isLedger(root, rel) {
		return newError(KindEffect, pos, "write to another file; a script that could write the ledger could forge the labels of any file",
			"%s is the audit ledger, which scripts may read but not write", path)
	}
	if part := f.protectedWrite(rel, abs); part != "" {
		return newError(KindEffect, pos,
			fmt.Sprintf("write somewhere else; %s holds repository metadata or tool configuration that other programs execute, so scripts may not write it. An embedder that means to allow it passes WithWritableProtected(%q) (guardrun --allow-protected-write %s)", part, part, part),
			"%s is protected: scripts may not write under %s", path, part)
	}
	if dir := filepath.Dir(rel); dir != "." {
		if err := root.MkdirAll(dir, 0o755); err != nil {
			return f.ioError(err, path, pos)
		}
	}
	if err := f.record(root, rel, abs, content, d, appendMode); err != nil {
		return &Error{Kind: KindEffect, Pos: pos, Err: err,
			Message: fmt.Sprintf("cannot record the labels of %s in the audit ledger, so it was not written: %v", path, err),
			Hint:    fmt.Sprintf("make %s under the base directory (%s) a writable directory and file", audit.RelPath, f.base)}
	}
	flags := os.O_CREATE | os.O_WRONLY | os.O_TRUNC
	if appendMode {
		flags = os.O_CREATE | os.O_WRONLY | os.O_APPEND
	}
	file, err := root.OpenFile(rel, flags, 0o644)
	if err != nil {
		return f.ioError(err, path, pos)
	}
	// One write call per effect: appends from concurrent runs never tear.
	_, werr := file.WriteString(content)
	cerr := file.Close()
	if err := errors.Join(werr, cerr); err != nil {
		return f.ioError(err, path, pos)
	}
	return nil
}

// record writes the ledger record of writing content to abs (rel under
// the base directory), when one is due: the data is labelled, or the
// ledger has a record for the file (so that overwriting a labelled file
// with clean data reads back clean).
func (f *files) record(root *os.Root, rel, abs, content string, d taint.Descriptor, appendMode bool) error {
	w := f.writeOf(abs)
	w.Desc, w.Append = d, appendMode
	if d.IsZero() {
		_, recorded, err := f.lookup(audit.Key{Path: w.Path, Rel: w.Rel})
		if err != nil || !recorded {
			return err
		}
	} else {
		w.SHA256 = contentHash(root, rel, content, appendMode)
	}
	return f.recordWrites(w)
}

// contentHash is the SHA-256 of what rel will hold once content is written
// (appended) to it, or "" when the file is too large to read back.
func contentHash(root *os.Root, rel, content string, appendMode bool) string {
	h := sha256.New()
	if appendMode {
		st, err := root.Stat(rel)
		switch {
		case err == nil && st.Size() <= maxHashedFile:
			old, err := root.ReadFile(rel)
			if err != nil {
				return ""
			}
			h.Write(old)
		case err == nil || !errors.Is(err, fs.ErrNotExist):
			return ""
		}
	}
	h.Write([]byte(content))
	return hex.EncodeToString(h.Sum(nil))
}

// isLedger reports whether rel names the audit ledger, directly or through
// a link. A script that could write the ledger could forge a clean record
// for a labelled file.
func (f *files) isLedger(root *os.Root, rel string) bool {
	if filepath.Clean(rel) == audit.RelPath {
		return true
	}
	target, err := root.Stat(rel)
	if err != nil {
		return false
	}
	ledger, err := root.Stat(audit.RelPath)
	return err == nil && os.SameFile(target, ledger)
}

// provenance is the descriptor of data loaded from the absolute path abs
// (SPEC §4.2, file load row): src:file and dir:<parent> for every parent
// directory but the filesystem root (as mlld's labelsForPath), the path as
// a source, and then whatever the audit ledgers restore for the file,
// found by its resolved base-relative path and by its content (see
// audit.Ledger.LookupKey: the last overwrite unioned with the appends
// after it; PORT: mlld 2.0.5 keeps only the last record). An unreadable
// ledger fails the load rather than return the data unlabelled.
func (f *files) provenance(abs, path string, content []byte, pos ast.Pos) (taint.Descriptor, error) {
	w := f.writeOf(abs)
	shown, source := w.Path, abs
	if f.baseAsRoot && w.Rel != "" {
		shown = "/" + filepath.ToSlash(w.Rel)
		source = shown
	}
	tnt := append([]string{taint.SrcFile}, taint.DirTaint(shown)...)
	d := taint.Make(nil, tnt, []string{source})
	sum := sha256.Sum256(content)
	restored, _, err := f.lookup(audit.Key{Path: w.Path, Rel: w.Rel, SHA256: hex.EncodeToString(sum[:])})
	if err != nil {
		return d, &Error{Kind: KindFile, Pos: pos, Err: err,
			Message: fmt.Sprintf("cannot read the labels of %s from the audit ledger: %v", path, err),
			Hint:    fmt.Sprintf("make %s under the base directory (%s) and the state directory readable", audit.RelPath, f.base)}
	}
	return d.Merge(restored), nil
}

// evalFileLoad evaluates `<path>`: the file's contents with the
// provenance of the file, or the files a glob matches (fileload.go).
func (in *interp) evalFileLoad(e *env, x *ast.FileLoad) (*value.Variable, error) {
	return in.loadExpr(e, x)
}

// loadOne reads one file and labels it with its provenance.
func (in *interp) loadOne(e *env, name string, pos ast.Pos) (*value.Variable, []byte, string, error) {
	b, path, err := in.files.read(e.mod.dir, name, pos)
	if err != nil {
		return nil, nil, "", err
	}
	v := value.New(string(b))
	// The ledger is read after the file: a writer records before it
	// writes, so whatever content was read, its record is already there.
	v.Security, err = in.files.provenance(path, name, b, pos)
	if err != nil {
		return nil, nil, "", err
	}
	v.Source = path
	if in.rec != nil {
		in.rec.load(v, name, pos)
	}
	return v, b, path, nil
}

// missing is ioError for a path read or looked up, where nothing is at
// rel: the hint names a file beside it one or two edits away, so a
// misspelt module (`./gti.guard`) gets a did-you-mean (`./git.guard`).
func (f *files) missing(err error, root *os.Root, rel, path string, pos ast.Pos) error {
	ie := f.ioError(err, path, pos)
	if !errors.Is(err, fs.ErrNotExist) {
		return ie
	}
	want := filepath.Base(rel)
	best, bestD := "", 3
	for _, ent := range readDir(root, filepath.Dir(rel)) {
		name := ent.Name()
		if d := editdist.Distance(want, name); d < bestD && d < len(want)/2 {
			best, bestD = name, d
		}
	}
	if e, ok := ie.(*Error); ok && best != "" {
		e.Hint = "did you mean " + strings.TrimSuffix(path, filepath.Base(path)) + best + "? (" + e.Hint + ")"
	}
	return ie
}

// ioError says what went wrong with path, keeping the cause.
func (f *files) ioError(err error, path string, pos ast.Pos) error {
	msg, hint := fmt.Sprintf("cannot access %s: %v", path, err), "check the path and its permissions"
	switch {
	case errors.Is(err, fs.ErrNotExist):
		msg, hint = "File not found: "+path, "check the path; it is relative to the file that names it"
	case strings.Contains(err.Error(), "path escapes from parent"):
		msg, hint = fmt.Sprintf("%s leads outside the base directory through a symbolic link", path),
			fmt.Sprintf("scripts may only read and write inside the base directory (%s)", f.base)
	}
	return &Error{Kind: KindFile, Pos: pos, Message: msg, Hint: hint, Err: err}
}
