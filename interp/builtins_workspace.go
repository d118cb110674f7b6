package interp

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/guardrun/guardrun/ast"
	"github.com/guardrun/guardrun/interp/value"
)

// The workspace builtins agent rules need (stale-write protection,
// write scopes): @sha256(text) is the hex SHA-256 of a value's text,
// @readWorkspaceFile(path) a file's content, confined to the base
// directory like every other file access (`<file>`, @exists, output), and
// @pathMatches(path, globs) whether a path inside the base directory
// matches one of the globs. Relative paths and globs are relative to the
// base directory.
func init() {
	builtinNames["sha256"] = true
	builtinNames["readWorkspaceFile"] = true
	builtinNames["pathMatches"] = true
}

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
		// Relative to the base directory (the workspace), not to the
		// module: rule modules live in a subdirectory of it.
		b, abs, err := in.files.read("", path, pos)
		if err != nil {
			return nil, true, err
		}
		d, err := in.files.provenance(abs, path, b, pos)
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
		if in.files.base == "" {
			return nil, true, noBaseError("@pathMatches", pos)
		}
		// A relative path is relative to the base directory, as the globs
		// are (not to the module: rules live in a subdirectory).
		rel, _, err := in.files.resolve("", value.Text(args[0].Data), pos)
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
