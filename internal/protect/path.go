package protect

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// maxLinks bounds the symbolic links one walk follows, as the kernels
// do (40 on Linux, 32 on darwin): past it the path is not resolved
// further, and opening it would fail anyway.
const maxLinks = 64

const sep = string(filepath.Separator)

// absolute turns p as the agent spelled it into an absolute path, not
// yet cleaned: ~, ~/…, ~user/… (taken as a sibling of the home
// directory), $HOME, ${HOME} and the other variables the set knows
// expanded, a relative path joined to cwd. A relative cwd is taken
// relative to the workspace (or this process's directory).
func (s *Set) absolute(p, cwd string) string {
	switch {
	case p[0] == '~' && s.home != "":
		name, rest := splitFirst(p[1:])
		if name == "" {
			p = s.home + rest
		} else if userName(name) {
			p = filepath.Join(filepath.Dir(s.home), name) + rest
		}
	case p[0] == '$':
		if v, rest, ok := s.expandVar(p[1:]); ok {
			p = v + rest
		}
	}
	if filepath.IsAbs(p) {
		return p
	}
	if !filepath.IsAbs(cwd) {
		base := s.ws
		if base == "" {
			base, _ = os.Getwd()
		}
		cwd = filepath.Join(base, cwd)
	}
	return cwd + sep + p
}

// userName reports whether ~name could name a user's home directory
// (the shell leaves ~.. or ~x/y alone).
func userName(name string) bool {
	if name == "." || name == ".." {
		return false
	}
	for i := 0; i < len(name); i++ {
		if !nameByte(name[i]) || name[i] >= 0x80 {
			return false
		}
	}
	return true
}

// splitFirst splits p before its first separator.
func splitFirst(p string) (first, rest string) {
	if i := strings.IndexAny(p, separators); i >= 0 {
		return p[:i], p[i:]
	}
	return p, ""
}

// expandVar expands the variable that v (the text after a $) starts
// with, when the set knows it and it is the whole first element.
func (s *Set) expandVar(v string) (value, rest string, ok bool) {
	var name string
	if strings.HasPrefix(v, "{") {
		end := strings.IndexByte(v, '}')
		if end < 0 {
			return "", "", false
		}
		name, rest = v[1:end], v[end+1:]
	} else {
		name, rest = splitFirst(v)
	}
	if rest != "" && !os.IsPathSeparator(rest[0]) {
		return "", "", false
	}
	for _, kv := range s.vars {
		if kv[0] == name {
			return kv[1], rest, true
		}
	}
	return "", "", false
}

// walker is a walk's progress: the resolved path so far, how many of
// its last components do not exist, the protected file or directory it
// is in (recognised by identity) and the links followed.
type walker struct {
	dest         string
	missing      int
	inside, root string
	links        int
}

// prefix is a directory (the workspace, the home directory) resolved
// once by ForAgent, so that Covers walks only what lies below it.
type prefix struct {
	path string
	at   walker
}

// walk resolves the symbolic links in the existing part of the absolute
// path p, component by component as the kernel would (so a .. after a
// link goes up from its target); a component that does not exist is
// taken as a directory to be made, so x/.. is resolved as the kernel
// would once mkdir -p made x. It also reports the existing protected
// file or directory, recognised by identity, that the resolved path is
// in.
func (s *Set) walk(p string) (resolved, root string, ok bool) {
	for _, pre := range s.pre {
		if strings.HasPrefix(p, pre.path) && (len(p) == len(pre.path) || os.IsPathSeparator(p[len(pre.path)])) {
			w := pre.at
			w.walk(s, p[len(pre.path):])
			return w.dest, w.root, w.inside != ""
		}
	}
	vol := filepath.VolumeName(p)
	w := walker{dest: vol + sep}
	w.walk(s, p[len(vol):])
	return w.dest, w.root, w.inside != ""
}

// walk goes on with the path rest, relative to w.dest.
func (w *walker) walk(s *Set, rest string) {
	for rest != "" {
		i := 0
		for i < len(rest) && os.IsPathSeparator(rest[i]) {
			i++
		}
		rest = rest[i:]
		comp, tail := splitFirst(rest)
		rest = tail
		switch comp {
		case "", ".":
			continue
		case "..":
			w.dest = filepath.Dir(w.dest)
			if w.missing > 0 {
				w.missing--
			}
			if w.inside != "" && w.dest != w.inside && !within(w.dest, w.inside) {
				w.inside, w.root = "", "" // climbed out of it
			}
			continue
		}
		next := filepath.Join(w.dest, comp)
		if w.missing > 0 {
			w.dest, w.missing = next, w.missing+1
			continue
		}
		fi, err := os.Lstat(next)
		if err != nil {
			// Taken as a directory still to be made (mkdir -p x &&
			// cd x/..): a later .. may climb back into what exists.
			w.dest, w.missing = next, 1
			continue
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			if w.inside == "" {
				if r, found := s.identify(fi); found {
					w.inside, w.root = next, r
				}
			}
			w.dest = next
			continue
		}
		w.links++
		target, err := os.Readlink(next)
		if err != nil || w.links > maxLinks {
			w.dest = filepath.Join(next, rest)
			return
		}
		if filepath.IsAbs(target) {
			v := filepath.VolumeName(target)
			w.dest, target = v+sep, target[len(v):]
			w.inside, w.root = "", ""
		}
		rest = target + sep + rest
	}
}

// identify names the protected file or directory fi is, if any.
func (s *Set) identify(fi fs.FileInfo) (string, bool) {
	for _, id := range s.ids {
		if os.SameFile(fi, id.info) {
			return id.root, true
		}
	}
	return "", false
}

// resolve is walk without the identity check, for the roots themselves.
func resolve(p string) string {
	var none Set
	r, _, _ := none.walk(p)
	return r
}
