package protect

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/guardrun/guardrun/internal/xdgdir"
)

// Set is the set of paths an agent's tool calls may not write.
//
// It is built once by ForAgent and only read afterwards, so one Set may
// be used from many goroutines. The zero Set protects nothing.
type Set struct {
	home, ws string
	// vars are the variables a path may start with ($HOME, the XDG
	// ones, …) and their absolute values.
	vars [][2]string
	// roots holds every spelling of every protected root (as named and
	// with its symbolic links resolved), folded when it compares
	// case-insensitively.
	roots []root
	// fold is set when some root compares case-insensitively.
	fold bool
	// ids are the protected files and directories that exist.
	ids []identity
	// inside drops the ancestors of the roots from what is covered
	// (Inside).
	inside bool
	// needles are what Mentions looks for.
	needles []needle
	// pre are directories resolved in advance (workspace, home).
	pre []prefix
}

// root is one spelling of a protected root: the file or directory path,
// or, with a pattern, the entries of path whose names match it.
type root struct {
	name    string // the root as ForAgent named it, for the answer
	path    string // cleaned, absolute; folded when fold
	pattern string // a filepath.Match pattern for the element under path
	fold    bool
}

// identity is an existing protected file or directory.
type identity struct {
	root string
	info fs.FileInfo
}

// ForAgent is guardrun's config, state, cache and data directories
// (xdgdir), guardrun's installed binaries (the dir of os.Executable if
// its base name starts with "guardrun", and the executables themselves),
// and the hosts' hook settings: ~/.claude/settings.json,
// ~/.claude/settings.local.json (any ~/.claude/settings*.json),
// ~/.gemini/settings.json, ~/.codex/ (config.toml, hooks),
// ~/.cursor/hooks.json, and in the workspace ws (when non-empty):
// ws/.claude/settings*.json, ws/.gemini/settings.json,
// ws/.cursor/hooks.json, ws/.codex/, ws/.guardrun/. home is $HOME;
// getenv reads XDG_* (pass os.Getenv in production, a map in tests).
//
// In the binaries' directory every entry whose name starts with
// "guardrun" is protected (guardrun, guardrun-hook, and any new one the
// agent would put beside them), not the directory's other programs.
// $CLAUDE_CONFIG_DIR and $CODEX_HOME, when getenv gives them as absolute
// paths, are protected like ~/.claude and ~/.codex. A relative ws is
// taken relative to this process's directory.
func ForAgent(getenv func(string) string, home, ws string) Set {
	exe, err := os.Executable()
	if err != nil {
		exe = ""
	}
	return forAgent(getenv, home, ws, exe)
}

// forAgent is ForAgent with the running executable given.
func forAgent(getenv func(string) string, home, ws, exe string) Set {
	var b builder
	if filepath.IsAbs(home) {
		b.home = filepath.Clean(home)
		b.vars = append(b.vars, [2]string{"HOME", b.home})
	}
	for _, k := range xdgdir.Kinds {
		if v := getenv(k.Env()); filepath.IsAbs(v) {
			b.vars = append(b.vars, [2]string{k.Env(), filepath.Clean(v)})
		}
		if dir, err := xdgdir.DirIn(k, getenv, b.home); err == nil {
			b.add(dir, "")
			if filepath.IsAbs(getenv(k.Env())) {
				b.tail(boundElem, filepath.ToSlash(filepath.Join(filepath.Base(filepath.Dir(dir)), xdgdir.Name)))
			}
		}
	}
	b.tail(boundElem, ".config/guardrun", ".local/state/guardrun", ".cache/guardrun", ".local/share/guardrun")
	if exe != "" && filepath.IsAbs(exe) && strings.HasPrefix(filepath.Base(exe), "guardrun") {
		dir := filepath.Dir(exe)
		b.add(dir, "guardrun*", exe, filepath.Join(dir, "guardrun"), filepath.Join(dir, "guardrun-hook"))
		b.add(exe, "")
	}
	if b.home != "" {
		b.hosts(b.home)
	}
	for _, env := range [...]string{"CLAUDE_CONFIG_DIR", "CODEX_HOME"} {
		d := getenv(env)
		if !filepath.IsAbs(d) {
			continue
		}
		d = filepath.Clean(d)
		b.vars = append(b.vars, [2]string{env, d})
		if env == "CLAUDE_CONFIG_DIR" {
			b.claude(d)
		} else {
			b.add(d, "")
		}
	}
	if ws != "" {
		if abs, err := filepath.Abs(ws); err == nil {
			b.ws = abs
			b.hosts(abs)
			b.add(filepath.Join(abs, ".guardrun"), "")
		}
	}
	b.tail(boundNone, ".claude/settings", ".gemini/settings")
	b.tail(boundElem, ".cursor/hooks.json", ".codex", ".guardrun")
	b.tail(boundExact, ".claude", ".gemini", ".cursor")
	return b.finish()
}

// hosts adds the agents' hook settings under dir (home or workspace).
func (b *builder) hosts(dir string) {
	b.claude(filepath.Join(dir, ".claude"))
	b.add(filepath.Join(dir, ".gemini", "settings.json"), "")
	b.add(filepath.Join(dir, ".cursor", "hooks.json"), "")
	b.add(filepath.Join(dir, ".codex"), "")
}

// claude adds Claude Code's settings files in dir; the two it reads
// are recognised by identity too.
func (b *builder) claude(dir string) {
	b.add(dir, "settings*.json", filepath.Join(dir, "settings.json"), filepath.Join(dir, "settings.local.json"))
}

// Covers reports whether path p, as the agent spelled it, names a
// protected file or directory or something inside one (or a directory
// that contains a protected root, e.g. `rm -r ~/.config` or
// `~/.local/state`), and which protected root. p may be relative to cwd,
// start with ~ or ~/ , $HOME/, ${HOME}/, hold //, /./, .., trailing
// slashes; symlinks anywhere in the existing part of the path are
// resolved (as filepath.EvalSymlinks would on the longest existing
// prefix, then the rest appended), and the comparison is
// case-insensitive when the file system is: always on darwin and
// windows; elsewhere a root is compared case-folded only when ForAgent's
// probe found the file system at that root case-insensitive (see the
// package doc for why that is enough).
//
// The path is decided both as spelled (cleaned lexically) and resolved,
// and is covered if either is: a write may replace a symbolic link as
// well as follow it. Resolution follows the links component by
// component, as the kernel does, so a .. after a link climbs from its
// target. An existing protected file or directory met on the way is
// recognised by identity, whatever its spelling (see the package doc
// for the case rules). An empty p names nothing; a relative cwd is taken
// relative to the workspace. The answer's root is the protected root as
// ForAgent named it (a pattern such as ~/.claude/settings*.json for a
// family of files).
func (s Set) Covers(p, cwd string) (root string, ok bool) {
	if p == "" || len(s.roots) == 0 {
		return "", false
	}
	abs := s.absolute(p, cwd)
	if root, ok := s.match(filepath.Clean(abs)); ok {
		return root, true
	}
	resolved, root, ok := s.walk(abs)
	if ok {
		return root, true
	}
	return s.match(resolved)
}

// Inside is Covers without the ancestors: it reports whether p names a
// protected file or directory or something inside one, but not a
// directory that merely holds a protected root. A write into a
// directory (`cp x .`, `touch ./new`) is checked with Inside; a delete
// or move of a directory (`rm -r ~/.config`) with Covers.
func (s Set) Inside(p, cwd string) (root string, ok bool) {
	s.inside = true
	return s.Covers(p, cwd)
}

// match compares a clean absolute path with every root's spellings.
func (s *Set) match(p string) (string, bool) {
	folded := ""
	if s.fold {
		folded = fold(p)
	}
	for i := range s.roots {
		r := &s.roots[i]
		q := p
		if r.fold {
			q = folded
		}
		if r.covers(q, s.inside) {
			return r.name, true
		}
	}
	return "", false
}

// covers reports whether the clean absolute path p (folded as r is) is
// r, inside r, or (unless inside) a directory that holds r.
func (r *root) covers(p string, inside bool) bool {
	if p == r.path {
		return true
	}
	if !inside && (strings.HasSuffix(p, sep) || within(r.path, p)) {
		return true // the file system's root, or an ancestor
	}
	if !within(p, r.path) {
		return false
	}
	if r.pattern == "" {
		return true
	}
	elem, _ := splitFirst(p[len(r.path)+1:])
	ok, _ := filepath.Match(r.pattern, elem)
	return ok
}

// within reports whether p lies strictly inside directory dir.
func within(p, dir string) bool {
	return len(p) > len(dir) && os.IsPathSeparator(p[len(dir)]) && p[:len(dir)] == dir
}

// Root is one protected root as ForAgent named it: the file or
// directory Path, or, when Pattern is set, the entries of directory
// Path whose names match Pattern (filepath.Match).
type Root struct {
	Path, Pattern string
}

// Roots lists the Set's protected roots once each, as ForAgent named
// them (symbolic links not resolved), for a caller that must protect
// them by other means than Covers: the kernel sandbox of guardrun exec.
func (s Set) Roots() []Root {
	var out []Root
	seen := map[string]bool{}
	for _, r := range s.roots {
		if seen[r.name] {
			continue
		}
		seen[r.name] = true
		if r.pattern != "" {
			out = append(out, Root{Path: filepath.Dir(r.name), Pattern: filepath.Base(r.name)})
		} else {
			out = append(out, Root{Path: r.name})
		}
	}
	return out
}
