package interp

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sync"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/guardrun/guardrun/ast"
	"github.com/guardrun/guardrun/interp/value"
)

// The workspace builtins agent rules need (stale-write protection,
// write scopes): @sha256(text) is the hex SHA-256 of a value's text,
// @readWorkspaceFile(path) a file's content (null when there is no such
// file), and @pathMatches(path, globs) whether a path inside the
// workspace matches one of the globs. The workspace is the directory the
// decision names (Operation.Workspace: the project an agent works in),
// else the base directory; both builtins are confined to it like every
// other file access, and relative paths and globs are relative to it.
// They are listed in builtinNames.

// callWorkspaceBuiltin calls @sha256 or @readWorkspaceFile; ok is false
// for any other name.
func (in *interp) callWorkspaceBuiltin(e *env, name string, args []*value.Variable, pos ast.Pos) (*value.Variable, bool, error) {
	switch name {
	case "sha256":
		if len(args) != 1 {
			return nil, true, newError(KindType, pos, "call it as @sha256(text)", "@sha256 takes one argument, got %d", len(args))
		}
		sum := sha256.Sum256([]byte(value.Text(args[0].Data)))
		// A digest reveals nothing of the text but still derives from it:
		// it keeps the argument's labels, as every transformer does.
		return derived(hex.EncodeToString(sum[:]), args[0]), true, nil
	case "readWorkspaceFile":
		if len(args) != 1 {
			return nil, true, newError(KindType, pos, "call it as @readWorkspaceFile(path)", "@readWorkspaceFile takes one argument, got %d", len(args))
		}
		path := value.Text(args[0].Data)
		// Relative to the workspace, not to the module: rule modules
		// live in a subdirectory of it, or elsewhere.
		ws := in.workspaceOrBase()
		b, abs, err := ws.read("", path, pos)
		if errors.Is(err, fs.ErrNotExist) {
			// A rule asks whether the file is there as it reads it (a
			// write may create it); any other failure is an error.
			return derived(nil, args[0]), true, nil
		}
		if err != nil {
			return nil, true, err
		}
		d, err := ws.provenance(abs, path, b, pos)
		if err != nil {
			return nil, true, err
		}
		v := derived(string(b), args[0])
		v.Security = v.Security.Merge(d)
		return v, true, nil
	case "pathMatches":
		if len(args) != 2 {
			return nil, true, newError(KindType, pos, "call it as @pathMatches(path, [\"src/**\", \"*.md\"])", "@pathMatches takes two arguments, got %d", len(args))
		}
		ws := in.workspaceOrBase()
		if ws.base == "" {
			return nil, true, noBaseError("@pathMatches", pos)
		}
		// A relative path is relative to the workspace, as the globs are
		// (not to the module: rules live in a subdirectory, or elsewhere).
		rel, _, err := ws.resolve("", value.Text(args[0].Data), pos)
		if err != nil {
			// Outside the base directory: in no scope of it.
			return derived(false, args...), true, nil
		}
		rel = filepath.ToSlash(rel)
		matched, err := in.sh.globs.matchAny(args[1].Data, rel)
		if err != nil {
			return nil, true, newError(KindType, pos, "globs use *, **, ?, [a-z] and {a,b}", "%v", err)
		}
		return derived(matched, args...), true, nil
	}
	return nil, false, nil
}

// workspaceOrBase is the files the workspace builtins use: the current
// decision's workspace, else the base directory's.
func (in *interp) workspaceOrBase() *files {
	if in.workspace != nil {
		return in.workspace
	}
	return in.files
}

// workspaceFiles opens (once per directory) file access confined to dir,
// with the run's ledgers, caps and protections; nil for "".
func (in *interp) workspaceFiles(dir string) *files {
	if dir == "" {
		return nil
	}
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	if dir == in.files.base {
		return in.files
	}
	sh := in.sh
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if w := sh.workspaces[dir]; w != nil {
		return w
	}
	if sh.workspaces == nil {
		sh.workspaces = map[string]*files{}
	}
	w := &files{base: dir, stateDir: in.files.stateDir, baseAsRoot: in.files.baseAsRoot,
		writableProtected: in.files.writableProtected, maxRead: in.files.maxRead}
	sh.workspaces[dir] = w
	return w
}

// globCache holds the globs @pathMatches has checked, by their text: a
// pattern is validated once per program (the prepared program's shared
// state; decisions read it at once), then matched with doublestar.
// `*` and `?` stay within a path segment, `**` as a whole segment spans
// directories (`src/**` is src and everything under it, `**/x.go` x.go
// in any directory), `[a-z]` is a class and `{a,b}` either.
type globCache struct {
	valid sync.Map // glob text → struct{}
}

// matchAny reports whether path (slash separated, relative to the
// workspace) matches one of globs (a string or a list of them); a
// malformed glob is an error.
func (c *globCache) matchAny(globs any, path string) (bool, error) {
	switch g := globs.(type) {
	case string:
		return c.match(g, path)
	case []any:
		for _, x := range g {
			s, ok := x.(string)
			if !ok {
				s = value.Text(x)
			}
			if ok, err := c.match(s, path); ok || err != nil {
				return ok, err
			}
		}
	}
	return false, nil
}

func (c *globCache) match(glob, path string) (bool, error) {
	if _, ok := c.valid.Load(glob); !ok {
		if !doublestar.ValidatePattern(glob) {
			return false, fmt.Errorf("bad glob %q", glob)
		}
		c.valid.Store(glob, struct{}{})
	}
	return doublestar.MatchUnvalidated(glob, path), nil
}
