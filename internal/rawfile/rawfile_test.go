package rawfile

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	for _, size := range []int{0, 1, 511, 4096, 70000} {
		want := bytes.Repeat([]byte("abcdefg\n"), size/8+1)[:size]
		p := filepath.Join(dir, "f")
		if err := os.WriteFile(p, want, 0o600); err != nil {
			t.Fatal(err)
		}
		got, err := ReadFile(p, 1<<20)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("size %d: got %d bytes, %v", size, len(got), err)
		}
		if size > 0 {
			if _, err := ReadFile(p, int64(size-1)); !errors.Is(err, errTooLarge) {
				t.Errorf("size %d under a limit of %d: %v, want too large", size, size-1, err)
			}
		}
	}
	if _, err := ReadFile(filepath.Join(dir, "missing"), 10); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v, want fs.ErrNotExist", err)
	}
	var pe *fs.PathError
	if _, err := ReadFile(dir, 10); err == nil || !errors.As(err, &pe) || errors.Is(err, errTooLarge) {
		t.Errorf("a directory: %v, want a path error saying it is not a regular file", err)
	}
}

func TestOpenFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "log")
	for i := 0; i < 2; i++ {
		f, err := OpenFile(p, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.Write([]byte("line\n")); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(p)
	if err != nil || string(b) != "line\nline\n" {
		t.Fatalf("appended %q, %v", b, err)
	}
	if st, _ := os.Stat(p); st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", st.Mode().Perm())
	}
	if _, err := OpenFile(filepath.Join(p, "x"), os.O_RDONLY, 0); err == nil {
		t.Error("opened a path under a file")
	}
}
