package sandbox

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// target is a path some rights are denied on: the file or directory
// path (and everything beneath it), or, with a pattern, the entries of
// directory path whose names match it. path is absolute, clean and
// resolved as far as it exists.
type target struct {
	path, pattern string
}

// grant is one Landlock rule: rights on path, and beneath it when it is
// a directory.
type grant struct {
	path   string
	rights uint64
	dir    bool
}

// complement grants rights on everything beneath base except the
// targets: a directory that holds no target is granted whole, a
// directory on the way to one is "frozen" (granted nothing itself) and
// its existing entries are visited one by one. Symbolic links are not
// granted: the kernel decides an access by the path they resolve to,
// and granting the link would grant its target. A directory that
// cannot be listed grants nothing beneath it, which denies more, not
// less. It returns the grants and the frozen directories.
func complement(base string, rights uint64, denied []target) (grants []grant, frozen []string) {
	w := walker{rights: rights, denied: denied}
	fi, err := os.Stat(base)
	if err != nil {
		return nil, nil
	}
	w.visit(filepath.Clean(base), fi.IsDir())
	return w.grants, w.frozen
}

type walker struct {
	rights uint64
	denied []target
	grants []grant
	frozen []string
}

func (w *walker) visit(p string, dir bool) {
	if w.deniedAt(p) {
		return
	}
	if !dir {
		if r := w.rights & fileRights; r != 0 {
			w.grants = append(w.grants, grant{path: p, rights: r})
		}
		return
	}
	if !w.holdsDenied(p) {
		w.grants = append(w.grants, grant{path: p, rights: w.rights, dir: true})
		return
	}
	w.frozen = append(w.frozen, p)
	entries, err := os.ReadDir(p)
	if err != nil {
		return
	}
	for _, e := range entries {
		if e.Type()&fs.ModeSymlink != 0 {
			continue
		}
		w.visit(filepath.Join(p, e.Name()), e.IsDir())
	}
}

// deniedAt reports whether p is a target or lies beneath one.
func (w *walker) deniedAt(p string) bool {
	for _, t := range w.denied {
		if t.pattern == "" {
			if p == t.path || within(p, t.path) {
				return true
			}
			continue
		}
		if !within(p, t.path) {
			continue
		}
		elem, _, _ := strings.Cut(p[len(t.path)+1:], string(filepath.Separator))
		if ok, _ := filepath.Match(t.pattern, elem); ok {
			return true
		}
	}
	return false
}

// holdsDenied reports whether directory p holds a target beneath it.
func (w *walker) holdsDenied(p string) bool {
	for _, t := range w.denied {
		if within(t.path, p) || (t.pattern != "" && t.path == p) {
			return true
		}
	}
	return false
}

// within reports whether p lies strictly inside directory dir.
func within(p, dir string) bool {
	if dir == string(filepath.Separator) {
		return len(p) > 1 && p[0] == filepath.Separator
	}
	return len(p) > len(dir) && p[len(dir)] == filepath.Separator && p[:len(dir)] == dir
}

// resolve is p (absolute) with the symbolic links of its longest
// existing prefix resolved and the rest appended, as the kernel will
// meet it.
func resolve(p string) string {
	p = filepath.Clean(p)
	rest := ""
	for {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Join(r, rest)
		}
		parent := filepath.Dir(p)
		if parent == p {
			return filepath.Join(p, rest)
		}
		rest = filepath.Join(filepath.Base(p), rest)
		p = parent
	}
}
