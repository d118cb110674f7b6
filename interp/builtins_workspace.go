package interp

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"path/filepath"
	"regexp"
	"strings"

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
		for _, g := range stringsOf(args[1].Data) {
			re, err := globRegexp(g)
			if err != nil {
				return nil, true, newError(KindType, pos, "globs use *, **, ? and {a,b}", "bad glob %q: %v", g, err)
			}
			if re.MatchString(rel) {
				return derived(true, args...), true, nil
			}
		}
		return derived(false, args...), true, nil
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

// globRegexp compiles a path glob: `*` and `?` stay within a path
// segment, `**` crosses segments (`src/**` is everything under src,
// `**/x.go` x.go in any directory), `{a,b}` is either.
func globRegexp(g string) (*regexp.Regexp, error) {
	var b strings.Builder
	b.WriteString("^")
	depth := 0
	for i := 0; i < len(g); i++ {
		c := g[i]
		switch {
		case c == '*' && strings.HasPrefix(g[i:], "**/"):
			b.WriteString("(.*/)?")
			i += 2
		case c == '*' && strings.HasPrefix(g[i:], "**"):
			b.WriteString(".*")
			i++
		case c == '*':
			b.WriteString("[^/]*")
		case c == '?':
			b.WriteString("[^/]")
		case c == '{':
			depth++
			b.WriteString("(?:")
		case c == '}' && depth > 0:
			depth--
			b.WriteString(")")
		case c == ',' && depth > 0:
			b.WriteString("|")
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	if depth != 0 {
		return nil, errors.New("unclosed {")
	}
	b.WriteString("$")
	return regexp.Compile(b.String())
}
