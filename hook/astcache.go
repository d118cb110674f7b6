package hook

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"sync/atomic"

	"github.com/guardrun/guardrun/ast"
	"github.com/guardrun/guardrun/internal/astcodec"
	"github.com/guardrun/guardrun/internal/rawfile"
	"github.com/guardrun/guardrun/internal/xdgdir"
)

// ASTCache keeps parsed policies on disk, keyed by a hash of the guardrun
// binary's identity (path, size, modification time: a rebuilt binary
// never reads an older one's trees), the file name, the parse mode and
// the SHA-256 of the source. A hook call then skips building the parser
// and parsing, the bulk of its start-up. An entry is the SHA-256 of the
// source it was parsed from, then the tree's internal/astcodec encoding
// (its format version is their first bytes): a loaded entry is used only
// when that hash is the hash of the source being parsed and the tree
// names the same file and mode, so an entry copied over another's name
// (another text of the same file) is not used. Anything unexpected — an
// unreadable, corrupt, oversized or foreign entry, a tree the codec
// cannot encode — falls back to parsing. The cache is consulted only
// after a source passed the hook's pin check (Gate) and never to decide
// what is pinned (Fingerprint parses itself).
type ASTCache struct {
	Dir string
	// key starts every entry's hash: the key version and the binary's
	// identity.
	key string
	// Max is the number of entries kept (older ones are removed).
	Max int
	// checked says the directory was found private; a hook process
	// checks once, not once per module.
	checked atomic.Bool
}

// NewASTCache returns a cache in $XDG_CACHE_HOME/guardrun/ast (or
// ~/.cache/guardrun/ast), or nil when there is no usable directory.
func NewASTCache() *ASTCache {
	dir, err := xdgdir.Cache()
	if err != nil {
		return nil
	}
	exe, err := os.Executable()
	if err != nil {
		return nil
	}
	st, err := os.Stat(exe)
	if err != nil {
		return nil
	}
	return &ASTCache{Dir: filepath.Join(dir, "ast"), Max: 256,
		key: cacheKey(fmt.Sprintf("%s\x00%d\x00%d", exe, st.Size(), st.ModTime().UnixNano()))}
}

// cacheKey is the start of every entry's hash for a binary of identity
// self.
func cacheKey(self string) string { return "guardrun-ast-4\x00" + self + "\x00" }

// path is the entry of file's source whose SHA-256 is srcSum, in mode.
func (c *ASTCache) path(file string, srcSum *[sha256.Size]byte, mode ast.Mode) string {
	h := sha256.New()
	var m [24]byte
	b := strconv.AppendInt(append(m[:0], 0), int64(mode), 10)
	b = append(b, 0)
	io.WriteString(h, c.key)
	io.WriteString(h, file)
	h.Write(b)
	h.Write(srcSum[:])
	var sum [sha256.Size]byte
	return filepath.Join(c.Dir, hex.EncodeToString(h.Sum(sum[:0])[:20])+".ast")
}

// private reports whether the cache directory is the user's alone: a
// tree others could write would be a policy others could write. A cache
// checks once and then trusts its answer (a hook process makes one cache
// per call); a process that keeps a cache for long makes a new one to
// check again.
func (c *ASTCache) private() bool {
	if c.checked.Load() {
		return true
	}
	st, err := os.Stat(c.Dir)
	ok := err == nil && st.IsDir() && st.Mode().Perm()&0o022 == 0
	c.checked.Store(ok)
	return ok
}

// maxEntry bounds what Load reads and Store writes: far above any
// policy's tree, and it keeps a damaged entry from costing memory.
const maxEntry = 8 << 20

// Load implements guardrun.ParseCache.
func (c *ASTCache) Load(file string, src []byte, mode ast.Mode) *ast.Document {
	if c == nil || !c.private() {
		return nil
	}
	srcSum := sha256.Sum256(src)
	b := readEntry(c.path(file, &srcSum, mode))
	if len(b) < sha256.Size {
		return nil
	}
	doc, err := astcodec.Decode(b[sha256.Size:])
	if err != nil || doc.File != file || doc.Mode != mode || !bytes.Equal(b[:sha256.Size], srcSum[:]) {
		return nil
	}
	return doc
}

// readEntry returns the file's content, or nil when it cannot be read
// or is larger than maxEntry.
func readEntry(name string) []byte {
	b, err := rawfile.ReadFile(name, maxEntry)
	if err != nil {
		return nil
	}
	return b
}

// Store implements guardrun.ParseCache. A tree the codec cannot encode
// exactly is not stored.
func (c *ASTCache) Store(file string, src []byte, mode ast.Mode, doc *ast.Document) {
	if c == nil {
		return
	}
	enc, err := astcodec.Encode(doc)
	if err != nil || len(enc)+sha256.Size > maxEntry {
		return
	}
	srcSum := sha256.Sum256(src)
	b := append(srcSum[:len(srcSum):len(srcSum)], enc...)
	if err := os.MkdirAll(c.Dir, 0o700); err != nil || !c.private() {
		return
	}
	tmp, err := os.CreateTemp(c.Dir, ".tmp-*")
	if err != nil {
		return
	}
	_, werr := tmp.Write(b)
	if cerr := tmp.Close(); werr != nil || cerr != nil {
		os.Remove(tmp.Name())
		return
	}
	if os.Rename(tmp.Name(), c.path(file, &srcSum, mode)) != nil {
		os.Remove(tmp.Name())
		return
	}
	c.prune()
}

// prune keeps the newest Max entries.
func (c *ASTCache) prune() {
	entries, err := os.ReadDir(c.Dir)
	if err != nil || len(entries) <= c.Max {
		return
	}
	type ent struct {
		name string
		t    int64
	}
	var list []ent
	for _, e := range entries {
		if info, err := e.Info(); err == nil {
			list = append(list, ent{e.Name(), info.ModTime().UnixNano()})
		}
	}
	sort.Slice(list, func(i, j int) bool { return list[i].t > list[j].t })
	for _, e := range list[min(c.Max, len(list)):] {
		os.Remove(filepath.Join(c.Dir, e.name))
	}
}
