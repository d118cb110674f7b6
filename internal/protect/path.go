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
		} else {
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

// walk resolves the symbolic links in the existing part of the absolute
// path p, component by component as the kernel would (so a .. after a
// link goes up from its target); a component that does not exist is
// taken as a directory to be made, so x/.. is resolved as the kernel
// would once mkdir -p made x. It also reports the existing protected
// file or directory, recognised by identity, that the resolved path is
// in.
func (s *Set) walk(p string) (resolved, root string, ok bool) {
	vol := filepath.VolumeName(p)
	dest := vol + sep
	rest := p[len(vol):]
	// missing counts the components of dest that do not exist; inside is
	// the protected file or directory that dest is in, if any.
	links, missing := 0, 0
	inside := ""
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
			dest = filepath.Dir(dest)
			if missing > 0 {
				missing--
			}
			if inside != "" && dest != inside && !within(dest, inside) {
				inside, root = "", "" // climbed out of it
			}
			continue
		}
		next := filepath.Join(dest, comp)
		if missing > 0 {
			dest, missing = next, missing+1
			continue
		}
		fi, err := os.Lstat(next)
		if err != nil {
			// Taken as a directory still to be made (mkdir -p x &&
			// cd x/..): a later .. may climb back into what exists.
			dest, missing = next, 1
			continue
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			if inside == "" {
				if r, found := s.identify(fi); found {
					inside, root = next, r
				}
			}
			dest = next
			continue
		}
		links++
		target, err := os.Readlink(next)
		if err != nil || links > maxLinks {
			return filepath.Join(next, rest), root, inside != ""
		}
		if filepath.IsAbs(target) {
			v := filepath.VolumeName(target)
			dest, target = v+sep, target[len(v):]
			inside, root = "", ""
		}
		rest = target + sep + rest
	}
	return dest, root, inside != ""
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
