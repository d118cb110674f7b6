package rawfile

import (
	"bytes"
	"crypto/sha256"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestCacheServesUnchangedFiles: a settled file is read from disk once;
// every change a stat can see (content of the same size written later,
// a rename over it, a symlink turned to another file) reads it again;
// a file changed within the settle time is never kept; the bytes
// returned are the caller's.
func TestCacheServesUnchangedFiles(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "policy.guard")
	write := func(path, text string) {
		t.Helper()
		// Past the coarse clock's tick: a write after this one gets a
		// later change time (the settle time stands for this in use).
		time.Sleep(30 * time.Millisecond)
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	c := &Cache{}
	read := func(path, want string, reads int) {
		t.Helper()
		b, sum, err := c.ReadFile(path, 1<<20)
		if err != nil || string(b) != want {
			t.Fatalf("read %s: %q, %v; want %q", path, b, err, want)
		}
		if got := sha256.Sum256(b); got != sum {
			t.Fatalf("read %s: sum of another text", path)
		}
		if c.reads != reads {
			t.Fatalf("read %s: %d reads from disk, want %d", path, c.reads, reads)
		}
		b[0] = 'X' // the caller's own copy
	}

	// Read as if just after it was written: not settled, read every
	// time.
	c.now = func() time.Time { return time.Now().Add(-time.Minute) }
	write(p, "allow one")
	read(p, "allow one", 1)
	read(p, "allow one", 2)

	// As if read long after: kept.
	c.now = func() time.Time { return time.Now().Add(time.Minute) }
	read(p, "allow one", 3)
	read(p, "allow one", 3)
	write(p, "allow two") // same size, same inode
	read(p, "allow two", 4)
	read(p, "allow two", 4)

	q := filepath.Join(dir, "other")
	write(q, "deny three")
	if err := os.Rename(q, p); err != nil {
		t.Fatal(err)
	}
	read(p, "deny three", 5)

	l := filepath.Join(dir, "link")
	if err := os.Symlink(p, l); err != nil {
		t.Fatal(err)
	}
	read(l, "deny three", 6)
	read(l, "deny three", 6)
	write(q, "deny four!")
	if err := os.Remove(l); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(q, l); err != nil {
		t.Fatal(err)
	}
	read(l, "deny four!", 7)

	// Gone: an error, not the kept bytes.
	if err := os.Remove(q); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.ReadFile(l, 1<<20); err == nil {
		t.Fatal("a removed file was served from memory")
	}
	// Over the limit: an error, whatever is kept.
	if _, _, err := c.ReadFile(p, 3); err == nil {
		t.Fatal("a kept file over the limit was served")
	}
	// A nil Cache reads.
	var none *Cache
	if b, _, err := none.ReadFile(p, 1<<20); err != nil || !bytes.Equal(b, []byte("deny three")) {
		t.Fatalf("nil cache: %q, %v", b, err)
	}
}
