package protect

import (
	"io/fs"
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
	// seen memoises what the builder learnt of each path and of its
	// ancestors, which the roots share.
	seen map[string]*seen
	// probed memoises the case probe of a directory.
	probed map[string]bool
}

// seen is what the builder learnt of a clean absolute path: where it
// resolves to, and the file there (nil when there is none).
type seen struct {
	real string
	fi   fs.FileInfo
}

// look resolves the clean absolute path p, its ancestors first and
// each once.
func (b *builder) look(p string) *seen {
	if e, ok := b.seen[p]; ok {
		return e
	}
	if b.seen == nil {
		b.seen = map[string]*seen{}
	}
	e := &seen{real: p}
	if parent := filepath.Dir(p); parent == p {
		e.fi, _ = os.Stat(p)
	} else if pe := b.look(parent); pe.fi != nil {
		e.real = filepath.Join(pe.real, filepath.Base(p))
		fi, err := os.Lstat(e.real)
		if err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			e.real = resolve(e.real)
			fi, err = os.Stat(e.real)
		}
		if err == nil {
			e.fi = fi
		}
	} else {
		e.real = filepath.Join(pe.real, filepath.Base(p))
	}
	b.seen[p] = e
	return e
}

// add protects path (clean, absolute) or, with a pattern, the entries
// of directory path whose names match it. known are the pattern's
// entries to recognise by identity (listing the directory would cost
// the hook more than it is worth).
func (b *builder) add(path, pattern string, known ...string) {
	path = filepath.Clean(path)
	name := path
	if pattern != "" {
		name = filepath.Join(path, pattern)
	}
	folds := b.foldsAt(path)
	b.fold = b.fold || folds
	for i, p := range [...]string{path, b.look(path).real} {
		if i == 1 && p == path {
			break
		}
		b.roots = append(b.roots, root{name: name, path: foldIf(folds, p), pattern: foldIf(folds, pattern), fold: folds})
		b.needle(name, p, pattern)
	}
	if pattern == "" {
		known = []string{path}
	}
	for _, k := range known {
		if fi := b.look(filepath.Clean(k)).fi; fi != nil {
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
func (b *builder) foldsAt(path string) bool {
	switch runtime.GOOS {
	case "darwin", "windows", "ios":
		return true
	}
	d := path
	for b.look(d).fi == nil && filepath.Dir(d) != d {
		d = filepath.Dir(d)
	}
	if f, ok := b.probed[d]; ok {
		return f
	}
	f := false
	if fi := b.look(d).fi; fi != nil {
		if sw := swapCase(filepath.Base(d)); sw != filepath.Base(d) {
			fj, err := os.Stat(filepath.Join(filepath.Dir(d), sw))
			f = err == nil && os.SameFile(fi, fj)
		}
	}
	if b.probed == nil {
		b.probed = map[string]bool{}
	}
	b.probed[d] = f
	return f
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
	for _, d := range [...]string{b.ws, b.home} {
		if d != "" {
			w := walker{dest: filepath.VolumeName(d) + sep}
			w.walk(&b.Set, d[len(filepath.VolumeName(d)):])
			b.pre = append(b.pre, prefix{path: d, at: w})
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
