package conformance

import (
	"io"
	"os"
	"path/filepath"
	"strings"
)

// isDefinitionFile reports whether a file only defines the test and so stays
// out of the run directory, as in mlld's harness (at every depth).
func isDefinitionFile(name string) bool {
	switch {
	case strings.HasPrefix(name, "example") && strings.HasSuffix(name, ".md"),
		strings.HasPrefix(name, "expected") && strings.HasSuffix(name, ".md"),
		name == "error.md", name == "expected-error.json", name == "warning.md":
		return true
	}
	// Variant error files (error-<v>.md) define tests too. example*.mld is
	// copied, as mlld's harness does.
	return strings.HasPrefix(name, "error-") && strings.HasSuffix(name, ".md")
}

// CopyCase copies the case directory src into dst recursively, leaving out
// the files that define the test (scripts in markdown, expected and error
// files), so a run sees the same directory it would under mlld's harness.
// Other golden-file runners use it to share that rule.
func CopyCase(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if !d.Type().IsRegular() || isDefinitionFile(d.Name()) {
			return nil
		}
		return copyFile(path, target)
	})
}

// CopyShared copies the top-level regular files of dir into dst, as mlld's
// harness copies tests/cases/files/ into every case's file system before
// the case's own files (which then win on a name clash). Subdirectories and
// config.mlld stay out, as there.
func CopyShared(dir, dst string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if !e.Type().IsRegular() || e.Name() == "config.mlld" {
			continue
		}
		if err := copyFile(filepath.Join(dir, e.Name()), filepath.Join(dst, e.Name())); err != nil {
			return err
		}
	}
	return nil
}

// SharedDirFor returns the shared-files folder of a corpus, the `files/`
// directory beside casesDir, or "" when there is none.
func SharedDirFor(casesDir string) string {
	dir := filepath.Join(filepath.Dir(filepath.Clean(casesDir)), "files")
	if st, err := os.Stat(dir); err == nil && st.IsDir() {
		return dir
	}
	return ""
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
