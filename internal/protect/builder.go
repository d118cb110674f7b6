package protect

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// builder gathers a Set's roots and needles.
type builder struct {
	Set
	// under are the roots' paths inside the home directory (and not in
	// the workspace), for the ancestors Mentions looks for.
	under []string
	tails []needle
}

// add protects path (clean, absolute) or, with a pattern, the entries
// of directory path whose names match it. known are the entries to
// recognise by identity (by default those that match now).
func (b *builder) add(path, pattern string, known ...string) {
	path = filepath.Clean(path)
	name := path
	if pattern != "" {
		name = filepath.Join(path, pattern)
	}
	folds := foldsAt(path)
	b.fold = b.fold || folds
	for i, p := range [...]string{path, resolve(path)} {
		if i == 1 && p == path {
			break
		}
		b.roots = append(b.roots, root{name: name, path: foldIf(folds, p), pattern: foldIf(folds, pattern), fold: folds})
		b.needle(name, p, pattern)
	}
	if pattern == "" {
		known = []string{path}
	} else if known == nil {
		known, _ = filepath.Glob(name)
	}
	for _, k := range known {
		if fi, err := os.Stat(k); err == nil {
			b.ids = append(b.ids, identity{root: name, info: fi})
		}
	}
	if b.home != "" && within(path, b.home) && (b.ws == "" || !within(path, b.ws)) {
		b.under = append(b.under, path)
	}
}

// foldIf is s, folded when f is set.
func foldIf(f bool, s string) string {
	if f {
		return fold(s)
	}
	return s
}

// foldsAt reports whether names at path compare case-insensitively:
// always on darwin and windows, elsewhere when the deepest existing
// ancestor of path is found again with its name's case swapped.
func foldsAt(path string) bool {
	switch runtime.GOOS {
	case "darwin", "windows", "ios":
		return true
	}
	for d := path; ; d = filepath.Dir(d) {
		fi, err := os.Lstat(d)
		if err != nil {
			if filepath.Dir(d) == d {
				return false
			}
			continue
		}
		sw := swapCase(filepath.Base(d))
		if sw == filepath.Base(d) {
			return false
		}
		fj, err := os.Lstat(filepath.Join(filepath.Dir(d), sw))
		return err == nil && os.SameFile(fi, fj)
	}
}

// needle adds the spellings of root name's path p (and pattern) that
// Mentions looks for: under the home directory as ~/, $HOME/, ${HOME}/
// and the literal home, else the path as it is.
func (b *builder) needle(name, p, pattern string) {
	end := boundElem
	if pattern != "" {
		p = filepath.Join(p, pattern[:strings.IndexAny(pattern+"*", "*?[")])
		end = boundNone
	}
	for _, t := range b.spellings(p) {
		b.needles = append(b.needles, needle{text: t, root: name, end: end})
	}
}

// spellings are the ways text may write absolute path p.
func (b *builder) spellings(p string) []string {
	s := []string{filepath.ToSlash(p)}
	if b.home != "" && within(p, b.home) {
		rel := filepath.ToSlash(p[len(b.home)+1:])
		s = append(s, "~/"+rel, "$HOME/"+rel, "${HOME}/"+rel)
	}
	return s
}

// tail adds distinctive tails of protected paths (.config/guardrun,
// .codex), matched from the start of a path element and up to end.
// They are looked for after the roots' own spellings.
func (b *builder) tail(end bound, tails ...string) {
	for _, t := range tails {
		b.tails = append(b.tails, needle{text: t, root: t, start: true, end: end})
	}
}

// finish adds the directories between the home directory and each
// root under it (~/.config, ~/.local, ~/.local/state, …), matched only
// where the text names the directory itself (as rm -r would), then the
// tails; it drops repeated needles and folds them when some root
// compares case-insensitively.
func (b *builder) finish() Set {
	seen := map[string]bool{}
	for _, p := range b.under {
		for d := filepath.Dir(p); d != b.home && within(d, b.home); d = filepath.Dir(d) {
			if seen[d] {
				continue
			}
			seen[d] = true
			for _, t := range b.spellings(d) {
				b.needles = append(b.needles, needle{text: t, root: d, end: boundExact})
			}
		}
	}
	all := append(b.needles, b.tails...)
	b.needles = all[:0]
	have := map[needle]bool{}
	for _, n := range all {
		if b.fold {
			n.text = fold(n.text)
		}
		if !have[n] {
			have[n] = true
			b.needles = append(b.needles, n)
		}
	}
	return b.Set
}
