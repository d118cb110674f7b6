package interp

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/guardrun/guardrun/ast"
)

// files confines what a script reads and writes (imports, <file> loads,
// output and append) to the run's base directory. Paths are checked
// lexically first, for a clear message, and then opened through an os.Root,
// which also refuses symlinks that lead out of the directory.
type files struct {
	base string
	root *os.Root
	err  error
}

// baseDir is where a run's relative paths start and commands run: the
// Dir option, else the script's directory, else the working directory.
func baseDir(opts Options, docFile string) string {
	dir := opts.Dir
	if dir == "" && docFile != "" {
		dir = filepath.Dir(docFile)
	}
	if dir == "" {
		dir = "."
	}
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	return dir
}

// scriptDir is where the main script's relative paths start: the directory
// of its file when the name has one, else the base directory (a script
// compiled from memory under a bare name).
func scriptDir(docFile, base string) string {
	dir := filepath.Dir(docFile)
	if docFile == "" || dir == "." {
		return base
	}
	if abs, err := filepath.Abs(dir); err == nil {
		return abs
	}
	return base
}

func (f *files) open() (*os.Root, error) {
	if f.root == nil && f.err == nil {
		f.root, f.err = os.OpenRoot(f.base)
	}
	return f.root, f.err
}

func (f *files) close() {
	if f.root != nil {
		f.root.Close()
	}
}

// resolve turns path, relative to fromDir unless absolute, into a path
// relative to the base directory, refusing anything outside it.
func (f *files) resolve(fromDir, path string, pos ast.Pos) (rel, abs string, err error) {
	abs = path
	if !filepath.IsAbs(abs) {
		if !filepath.IsAbs(fromDir) {
			fromDir = filepath.Join(f.base, fromDir)
		}
		abs = filepath.Join(fromDir, abs)
	}
	abs = filepath.Clean(abs)
	rel, err = filepath.Rel(f.base, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", "", newError(KindFile, pos,
			fmt.Sprintf("scripts may only read and write inside the base directory (%s); choose another with guardrun --dir or the WithDir option", f.base),
			"%s is outside the base directory", path)
	}
	return rel, abs, nil
}

// read returns the contents of path (relative to fromDir).
func (f *files) read(fromDir, path string, pos ast.Pos) ([]byte, string, error) {
	rel, abs, err := f.resolve(fromDir, path, pos)
	if err != nil {
		return nil, "", err
	}
	root, err := f.open()
	if err != nil {
		return nil, "", f.ioError(err, path, pos)
	}
	b, err := root.ReadFile(rel)
	if err != nil {
		return nil, "", f.ioError(err, path, pos)
	}
	return b, abs, nil
}

// write writes or appends content to path (relative to fromDir), creating
// missing directories.
func (f *files) write(fromDir, path, content string, appendMode bool, pos ast.Pos) error {
	rel, _, err := f.resolve(fromDir, path, pos)
	if err != nil {
		return err
	}
	root, err := f.open()
	if err != nil {
		return f.ioError(err, path, pos)
	}
	if dir := filepath.Dir(rel); dir != "." {
		if err := root.MkdirAll(dir, 0o755); err != nil {
			return f.ioError(err, path, pos)
		}
	}
	flags := os.O_CREATE | os.O_WRONLY | os.O_TRUNC
	if appendMode {
		flags = os.O_CREATE | os.O_WRONLY | os.O_APPEND
	}
	file, err := root.OpenFile(rel, flags, 0o644)
	if err != nil {
		return f.ioError(err, path, pos)
	}
	// One write call per effect: appends from concurrent runs never tear.
	_, werr := file.WriteString(content)
	cerr := file.Close()
	if err := errors.Join(werr, cerr); err != nil {
		return f.ioError(err, path, pos)
	}
	return nil
}

// ioError says what went wrong with path, keeping the cause.
func (f *files) ioError(err error, path string, pos ast.Pos) error {
	msg, hint := fmt.Sprintf("cannot access %s: %v", path, err), "check the path and its permissions"
	switch {
	case errors.Is(err, fs.ErrNotExist):
		msg, hint = "File not found: "+path, "check the path; it is relative to the file that names it"
	case strings.Contains(err.Error(), "path escapes from parent"):
		msg, hint = fmt.Sprintf("%s leads outside the base directory through a symbolic link", path),
			fmt.Sprintf("scripts may only read and write inside the base directory (%s)", f.base)
	}
	return &Error{Kind: KindFile, Pos: pos, Message: msg, Hint: hint, Err: err}
}
