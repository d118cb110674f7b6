package agent

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/guardrun/guardrun/interp/value"
	"github.com/guardrun/guardrun/toolschema"
)

// maxReadHash bounds the file the engine hashes after a read or write;
// a larger file is not recorded (no stale-write check, no cost).
const maxReadHash = 64 << 20

// pathFields are the input fields agents name a file in (toolschema's
// single-path role).
var pathFields = toolschema.FieldsWith(toolschema.RolePath)

// recordFile keeps, after an allowed, successful call of a file tool (fs:r or fs:w),
// the SHA-256 of the file as it now is, by absolute path: what the session
// last saw of it (`@mx.tools.reads`, for stale-write protection). A call
// without a path field (Codex's apply_patch) records the files its patch
// names. Only files inside the event's workspace or a policy's base
// directory are hashed, so the engine touches nothing a guard could not
// read itself; a file that cannot be read is forgotten (a later write has
// no hash to compare with). A replay records what the hook recorded.
func (e *Engine) recordFile(s *Session, ev Event, t toolDef) {
	if !hasPrefixIn(t.labels, "fs:") || ev.Error != "" {
		return
	}
	if ev.Hashes != nil {
		e.recordLogged(s, ev)
		return
	}
	for _, p := range filePaths(ev) {
		e.recordPath(s, ev, p)
	}
}

// filePaths are the files a file tool's call names: its path field, else
// the files its patch names.
func filePaths(ev Event) []string {
	for _, f := range pathFields {
		if x, ok := ev.Input[f].(string); ok && x != "" {
			return []string{x}
		}
	}
	var paths []string
	for _, f := range patchFields {
		if x, ok := ev.Input[f].(string); ok {
			paths = append(paths, patchPaths(x)...)
		}
	}
	return paths
}

// recordLogged records, in a replay, the hashes the hook recorded for
// the event (Event.Hashes), in the order of their paths.
func (e *Engine) recordLogged(s *Session, ev Event) {
	keys := make([]string, 0, len(ev.Hashes))
	for k := range ev.Hashes {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		e.recordPath(s, ev, k)
	}
}

// absPath is p, relative to the event's working directory, made absolute
// and clean; "" when p is relative and the event names no directory.
func absPath(ev Event, p string) string {
	if !filepath.IsAbs(p) {
		if ev.Cwd == "" {
			return ""
		}
		p = filepath.Join(ev.Cwd, p)
	}
	return filepath.Clean(p)
}

// recordPath keeps the SHA-256 of the file at p (relative to the
// event's working directory) as what the session last saw of it.
func (e *Engine) recordPath(s *Session, ev Event, p string) {
	if p = absPath(ev, p); p == "" {
		return
	}
	if s.Reads == nil {
		s.Reads = map[string]string{}
	}
	delete(s.Reads, p)
	s.readsMx = nil
	sum, ok := e.hashFile(s, ev, p)
	if !ok {
		return
	}
	if len(s.Reads) >= e.cfg.Limits.MaxCalls {
		// Full: forget an arbitrary older entry rather than grow.
		for k := range s.Reads {
			delete(s.Reads, k)
			break
		}
	}
	s.Reads[p] = sum
}

// hashFile is the SHA-256 of file p (absolute) for event ev: the file
// as it is now (hashInBase), or in a replay what the hook took
// (Event.Hashes). What it took, or "" for no file, is kept for the
// event's record (Record.Hashes).
func (e *Engine) hashFile(s *Session, ev Event, p string) (string, bool) {
	var sum string
	var ok bool
	if ev.Hashes != nil {
		sum = ev.Hashes[p]
		ok = sum != ""
	} else {
		sum, ok = e.hashInBase(p, e.workspaceOf(ev))
	}
	if s.hashed == nil {
		s.hashed = map[string]string{}
	}
	s.hashed[p] = sum
	return sum, ok
}

// currentObject is `@mx.tools.current` for a call of a file tool that
// writes (fs:w): the SHA-256 of each file it names as that file is now,
// by absolute path, so a guard compares it with what the session saw
// (`@mx.tools.reads`) without reading the file itself. A named path is
// keyed as the event's directory resolves it, and so is each file the
// session saw whose path ends with it (hosts that send relative paths
// from another directory). A file not there (or too large, or outside
// the workspace) has no key.
func (e *Engine) currentObject(s *Session, ev Event, t toolDef) *value.Object {
	o := value.NewObject()
	if !contains(t.labels, "fs:w") {
		return o
	}
	var paths []string
	for _, p := range filePaths(ev) {
		if a := absPath(ev, p); a != "" {
			paths = append(paths, a)
		}
		if rel := strings.TrimPrefix(filepath.Clean(p), "./"); !filepath.IsAbs(rel) && rel != "." {
			for k := range s.Reads {
				if strings.HasSuffix(k, string(filepath.Separator)+rel) {
					paths = append(paths, k)
				}
			}
		}
	}
	sort.Strings(paths)
	for _, p := range slices.Compact(paths) {
		if sum, ok := e.hashFile(s, ev, p); ok {
			o.Set(p, sum)
		}
	}
	return o
}

// hashInBase hashes file p when it lies inside the workspace ws or a
// policy's base directory.
func (e *Engine) hashInBase(p, ws string) (string, bool) {
	dirs := []string{ws}
	for _, l := range e.layers {
		dirs = append(dirs, l.dir)
	}
	for _, dir := range dirs {
		if dir == "" {
			continue
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			continue
		}
		root, err := os.OpenRoot(dir)
		if err != nil {
			continue
		}
		f, err := root.Open(rel)
		if err != nil {
			root.Close()
			continue
		}
		h := sha256.New()
		n, err := io.Copy(h, io.LimitReader(f, maxReadHash+1))
		f.Close()
		root.Close()
		if err != nil || n > maxReadHash {
			return "", false
		}
		return hex.EncodeToString(h.Sum(nil)), true
	}
	return "", false
}

// workspaceOf is the project directory an event's decision may read
// (Operation.Workspace): Config.Workspace, else the repository root
// enclosing the event's working directory (the nearest directory holding
// .git), else that directory itself; "" when the event names none.
func (e *Engine) workspaceOf(ev Event) string {
	if e.cfg.Workspace != "" {
		return e.cfg.Workspace
	}
	if ev.Cwd == "" || !filepath.IsAbs(ev.Cwd) {
		return ""
	}
	cwd := filepath.Clean(ev.Cwd)
	e.wsMu.Lock()
	defer e.wsMu.Unlock()
	if ws, ok := e.ws[cwd]; ok {
		return ws
	}
	ws := cwd
	for d := cwd; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			ws = d
			break
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	if e.ws == nil {
		e.ws = map[string]string{}
	}
	e.ws[cwd] = ws
	return ws
}

// readsObject is `@mx.tools.reads`: file path to the SHA-256 the session
// last saw.
func (s *Session) readsObject() *value.Object {
	if s.readsMx == nil {
		o := value.NewObject()
		keys := make([]string, 0, len(s.Reads))
		for k := range s.Reads {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			o.Set(k, s.Reads[k])
		}
		s.readsMx = o
	}
	return s.readsMx
}
