package conformance

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Discover walks casesDir with mlld's rule: a directory holding a file named
// example*.md or example*.mld is a case (its subdirectories are its input
// files, not cases); the top-level `files` directory and names starting with
// `.` or `_` are skipped; a case directory holding skip.md or skip-*.md is
// left out. Cases come back sorted by path, untagged except for "core".
func Discover(casesDir string) ([]Case, error) {
	var cases []Case
	err := filepath.WalkDir(casesDir, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		name := d.Name()
		if path != casesDir {
			if strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
				return filepath.SkipDir
			}
			if name == "files" && filepath.Dir(path) == filepath.Clean(casesDir) {
				return filepath.SkipDir
			}
		}
		entries, err := os.ReadDir(path)
		if err != nil {
			return err
		}
		scripts, skip := scanCaseDir(entries)
		if len(scripts) == 0 || path == casesDir {
			return nil
		}
		if !skip {
			rel, err := filepath.Rel(casesDir, path)
			if err != nil {
				return err
			}
			cases = append(cases, Case{Path: filepath.ToSlash(rel), Tags: []string{"core"}, Scripts: scripts})
		}
		return filepath.SkipDir
	})
	if err != nil {
		return nil, err
	}
	sort.Slice(cases, func(i, j int) bool { return cases[i].Path < cases[j].Path })
	return cases, nil
}

// scanCaseDir lists the scripts in a directory and whether a skip file is
// present.
func scanCaseDir(entries []os.DirEntry) (scripts []string, skip bool) {
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		n := e.Name()
		if isScript(n) {
			scripts = append(scripts, n)
		}
		if n == "skip.md" || (strings.HasPrefix(n, "skip-") && strings.HasSuffix(n, ".md")) {
			skip = true
		}
	}
	sort.Strings(scripts)
	return scripts, skip
}

func isScript(name string) bool {
	return strings.HasPrefix(name, "example") && (strings.HasSuffix(name, ".md") || strings.HasSuffix(name, ".mld"))
}
