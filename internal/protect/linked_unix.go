//go:build unix

package protect

import (
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// maxLinkScan bounds the entries Linked reads under the protected
// directories.
const maxLinkScan = 8192

// Linked reports whether p is a hard link to a file inside a protected
// directory (`ln ~/.config/guardrun/exfil.guard notes.txt` made one): a
// write of p writes that file, whatever p is called. Only a regular
// file with more than one link is looked up, so the common case costs
// one stat.
func (s Set) Linked(p, cwd string) (root string, ok bool) {
	if p == "" || len(s.ids) == 0 {
		return "", false
	}
	fi, err := os.Stat(s.absolute(p, cwd))
	if err != nil || !fi.Mode().IsRegular() {
		return "", false
	}
	st, isStat := fi.Sys().(*syscall.Stat_t)
	if !isStat || uint64(st.Nlink) < 2 {
		return "", false
	}
	n := 0
	for _, id := range s.ids {
		if os.SameFile(fi, id.info) {
			return id.root, true
		}
		if !id.info.IsDir() {
			continue
		}
		dir := ""
		for _, r := range s.roots {
			if r.name == id.root && r.pattern == "" {
				dir = r.path
				break
			}
		}
		if dir == "" {
			continue
		}
		found := false
		filepath.WalkDir(dir, func(q string, d fs.DirEntry, err error) error {
			if n++; n > maxLinkScan || found {
				return filepath.SkipAll
			}
			if err != nil || d.IsDir() || !d.Type().IsRegular() {
				return nil
			}
			if qi, err := d.Info(); err == nil && os.SameFile(fi, qi) {
				found = true
				return filepath.SkipAll
			}
			return nil
		})
		if found {
			return id.root, true
		}
	}
	return "", false
}
