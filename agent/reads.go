package agent

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"path/filepath"
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
// no hash to compare with).
func (e *Engine) recordFile(s *Session, ev Event, t toolDef) {
	if !hasPrefixIn(t.labels, "fs:") || ev.Error != "" {
		return
	}
	var paths []string
	for _, f := range pathFields {
		if x, ok := ev.Input[f].(string); ok && x != "" {
			paths = []string{x}
			break
		}
	}
	if paths == nil {
		for _, f := range patchFields {
			if x, ok := ev.Input[f].(string); ok {
				paths = append(paths, patchPaths(x)...)
			}
		}
	}
	for _, p := range paths {
		e.recordPath(s, ev, p)
	}
}

// recordPath keeps the SHA-256 of the file at p (relative to the
// event's working directory) as what the session last saw of it.
func (e *Engine) recordPath(s *Session, ev Event, p string) {
	if !filepath.IsAbs(p) {
		if ev.Cwd == "" {
			return
		}
		p = filepath.Join(ev.Cwd, p)
	}
	p = filepath.Clean(p)
	if s.Reads == nil {
		s.Reads = map[string]string{}
	}
	delete(s.Reads, p)
	s.readsMx = nil
	sum, ok := e.hashInBase(p, e.workspaceOf(ev))
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
