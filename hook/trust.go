package hook

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/guardrun/guardrun"
	"github.com/guardrun/guardrun/ast"
	"github.com/guardrun/guardrun/grammar"
	"github.com/guardrun/guardrun/internal/rawfile"
	"github.com/guardrun/guardrun/internal/xdgdir"
)

// Pin is the approved content of a policy: the SHA-256 of the file and
// of every module it imports, transitively (by absolute path). An
// imported directory is pinned by its listing ("dir:" and the SHA-256 of
// its entries' names) and each module in it; a module that was missing
// when approved is "missing".
type Pin struct {
	SHA256  string            `json:"sha256"`
	Imports map[string]string `json:"imports,omitempty"`
	// User marks the pin of the user's policy (guardrun init, guardrun
	// trust --user).
	User     bool      `json:"user,omitempty"`
	Approved time.Time `json:"approved"`
}

// missing and dirPrefix are the pins of a module that did not exist and
// of a directory.
const (
	missing   = "missing"
	dirPrefix = "dir:"
)

// TrustStore keeps the user's approvals of policies (direnv-style): the
// pins of workspace policies and of the user's own policy. A JSON file,
// 0600 in a 0700 directory.
type TrustStore struct{ Path string }

// DefaultTrustStore is $XDG_DATA_HOME/guardrun/trust.json (or
// ~/.local/share/guardrun/trust.json).
func DefaultTrustStore() (*TrustStore, error) {
	dir, err := xdgdir.Data()
	if err != nil {
		return nil, err
	}
	return &TrustStore{Path: filepath.Join(dir, "trust.json")}, nil
}

// maxHookFile bounds the files the hook reads on every event to check
// what it runs (the trust store, a policy, a module, a workspace
// binding): read with plain system calls (rawfile), which guardrun serve
// does for every request.
const maxHookFile = 64 << 20

// readFiles reads those files: nil in a hook process, which reads each
// once; a warm process's (NewWarm) serves them from memory while they
// are unchanged (rawfile.Cache).
var readFiles atomic.Pointer[rawfile.Cache]

func (t *TrustStore) load() (map[string]Pin, error) {
	b, _, err := readFiles.Load().ReadFile(t.Path, maxHookFile)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]Pin{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("trust store: %v", err)
	}
	pins := map[string]Pin{}
	if err := json.Unmarshal(b, &pins); err != nil {
		return nil, fmt.Errorf("trust store %s is corrupt (%v); remove it and approve your policies again", t.Path, err)
	}
	return pins, nil
}

func (t *TrustStore) save(pins map[string]Pin) error {
	dir := filepath.Dir(t.Path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("trust store: %v", err)
	}
	b, err := json.MarshalIndent(pins, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, ".trust-*")
	if err != nil {
		return fmt.Errorf("trust store: %v", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		return fmt.Errorf("trust store: %v", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("trust store: %v", err)
	}
	return os.Rename(tmp.Name(), t.Path)
}

// Trust approves file as it is now: it pins the SHA-256 of the file and
// its imports.
func (t *TrustStore) Trust(file string) (string, Pin, error) { return t.trust(file, false) }

// TrustUser pins the user's policy as it is now (UserPolicy): the hook
// runs it only while it and its modules are unchanged.
func (t *TrustStore) TrustUser() (string, Pin, error) {
	user, err := UserPolicy()
	if err != nil {
		return "", Pin{}, err
	}
	return t.trust(user, true)
}

func (t *TrustStore) trust(file string, user bool) (string, Pin, error) {
	abs, err := filepath.Abs(file)
	if err != nil {
		return "", Pin{}, err
	}
	pin, err := Fingerprint(abs)
	if err != nil {
		return "", Pin{}, err
	}
	pins, err := t.load()
	if err != nil {
		return "", Pin{}, err
	}
	pin.Approved = time.Now().UTC().Truncate(time.Second)
	pin.User = user
	pins[abs] = pin
	return abs, pin, t.save(pins)
}

// Revoke withdraws the approval of file.
func (t *TrustStore) Revoke(file string) (string, error) {
	abs, err := filepath.Abs(file)
	if err != nil {
		return "", err
	}
	pins, err := t.load()
	if err != nil {
		return "", err
	}
	if _, ok := pins[abs]; !ok {
		return abs, fmt.Errorf("%s is not approved", abs)
	}
	delete(pins, abs)
	return abs, t.save(pins)
}

// List returns the approved files and their pins.
func (t *TrustStore) List() (map[string]Pin, error) { return t.load() }

// Check returns nil when file (absolute) and its imports are exactly as
// approved, else an error naming what is new or changed and the command
// that approves it.
func (t *TrustStore) Check(file string) error {
	_, err := t.Verify(file, false)
	return err
}

// Approved is a policy found as pinned: its source, read once and hashed
// (the bytes to hand to the engine), and the pins of the modules it may
// load.
type Approved struct {
	File    string
	Source  []byte
	Modules map[string]string
	User    bool
}

// ChangedError is a policy file or module that differs from its pin.
// File is the changed file; its text is not run.
type ChangedError struct {
	File string
	msg  string
}

func (e *ChangedError) Error() string { return e.msg }

// approveCmd is the command that approves file after a review.
func approveCmd(file string, user bool) string {
	if user {
		return "guardrun trust --user"
	}
	return "guardrun trust " + file
}

// what names a policy in messages.
func what(user bool) string {
	if user {
		return "user policy"
	}
	return "workspace policy"
}

// Verify checks file (absolute) against its pin without parsing anything:
// the file and every pinned module and directory listing must be as
// approved. It returns the file's bytes as hashed, for the engine, and
// the module pins, for the load-time check (Gate): what the engine then
// parses must be exactly what was pinned. user says file is the user's
// policy (its messages name guardrun trust --user).
func (t *TrustStore) Verify(file string, user bool) (*Approved, error) {
	return t.verify(file, user, true)
}

// verifyForLoad is Verify without re-hashing imported module files
// (directory listings and modules pinned as missing are still checked):
// the hook loads the policy through a Gate, which hashes each module as
// the engine reads it and refuses one that differs from its pin, is not
// pinned, or was removed (Unloaded), with the same messages. Each module
// file is then read once per call, not twice.
func (t *TrustStore) verifyForLoad(file string, user bool) (*Approved, error) {
	return t.verify(file, user, false)
}

func (t *TrustStore) verify(file string, user, imports bool) (*Approved, error) {
	pins, err := t.load()
	if err != nil {
		return nil, err
	}
	kind, approve := what(user), approveCmd(file, user)
	old, ok := pins[file]
	if !ok {
		if user {
			return nil, fmt.Errorf("user policy %s is not pinned, so every tool call is denied (guardrun runs your policy only as you approved it; `guardrun init` pins the policy it writes); review it, then pin it with: %s", file, approve)
		}
		return nil, fmt.Errorf("workspace policy %s is not approved, so every tool call is denied; review it, then approve it with: %s", file, approve)
	}
	src, srcSum, err := readFiles.Load().ReadFile(file, maxHookFile)
	if err != nil {
		return nil, fmt.Errorf("%s %s: cannot read it (%v), so every tool call is denied", kind, file, err)
	}
	if hex.EncodeToString(srcSum[:]) != old.SHA256 {
		return nil, &ChangedError{File: file, msg: fmt.Sprintf("%s %s changed since you approved it, so every tool call is denied; review the change, then approve it with: %s", kind, file, approve)}
	}
	for _, p := range sortedPins(old.Imports, nil) {
		if !imports && old.Imports[p] != missing && !strings.HasPrefix(old.Imports[p], dirPrefix) {
			// A file module: the Gate hashes it as the engine reads it.
			continue
		}
		if now := pinOf(p, old.Imports[p]); now != old.Imports[p] {
			return nil, &ChangedError{File: p, msg: fmt.Sprintf("module %s imported by %s %s is new or changed since you approved it, so every tool call is denied; review the change, then approve it with: %s", p, kind, file, approve)}
		}
	}
	mods := make(map[string]string, len(old.Imports)+1)
	for p, h := range old.Imports {
		mods[p] = h
	}
	mods[file] = old.SHA256
	return &Approved{File: file, Source: src, Modules: mods, User: user}, nil
}

// pinOf is the current pin of path, pinned as was: a file's SHA-256, a
// directory's listing, or missing.
func pinOf(path, was string) string {
	if strings.HasPrefix(was, dirPrefix) {
		if l, ok := listing(path); ok {
			return l
		}
	}
	_, b, err := readFiles.Load().ReadFile(path, maxHookFile)
	if err != nil {
		if l, ok := listing(path); ok {
			return l
		}
		return missing
	}
	return hex.EncodeToString(b[:])
}

// listing pins a directory: the names of its entries, a directory's with
// a trailing slash, sorted.
func listing(dir string) (string, bool) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return "", false
	}
	h := sha256.New()
	for _, e := range ents {
		n := e.Name()
		if e.IsDir() {
			n += "/"
		}
		h.Write([]byte(n))
		h.Write([]byte{0})
	}
	return dirPrefix + hex.EncodeToString(h.Sum(nil)), true
}

func sortedPins(a, b map[string]string) []string {
	seen := map[string]bool{}
	var out []string
	for _, m := range []map[string]string{a, b} {
		for k := range m {
			if !seen[k] {
				seen[k] = true
				out = append(out, k)
			}
		}
	}
	sort.Strings(out)
	return out
}

// Fingerprint hashes a policy file and, transitively, the local modules
// it imports, resolved as the interpreter resolves them: every import
// path is a file or directory relative to the importing module (a path
// starting with @ too). A directory is pinned by its listing and each
// subdirectory's index.mld (what a directory import loads). Each file is
// read once and its imports are found in those bytes, parsed without the
// parse cache. A module that cannot be read is pinned as missing, so it
// appearing later still shows. The hook then refuses any module the
// engine loads that is not pinned here (Gate).
func Fingerprint(file string) (Pin, error) {
	src, err := os.ReadFile(file)
	if err != nil {
		return Pin{}, fmt.Errorf("cannot read policy: %v", err)
	}
	pin := Pin{SHA256: sum(src), Imports: map[string]string{}}
	seen := map[string]bool{file: true}
	var walk func(path string, src []byte)
	visit := func(p string) {
		if seen[p] {
			return
		}
		seen[p] = true
		b, err := os.ReadFile(p)
		if err != nil {
			l, ok := listing(p)
			if !ok {
				pin.Imports[p] = missing
				return
			}
			pin.Imports[p] = l
			ents, _ := os.ReadDir(p)
			for _, e := range ents {
				if !e.IsDir() {
					continue
				}
				index := filepath.Join(p, e.Name(), "index.mld")
				if st, err := os.Lstat(index); err != nil || !st.Mode().IsRegular() {
					continue
				}
				if seen[index] {
					continue
				}
				seen[index] = true
				ib, err := os.ReadFile(index)
				if err != nil {
					pin.Imports[index] = missing
					continue
				}
				pin.Imports[index] = sum(ib)
				walk(index, ib)
			}
			return
		}
		pin.Imports[p] = sum(b)
		walk(p, b)
	}
	walk = func(path string, src []byte) {
		for _, imp := range importPaths(path, src) {
			if !filepath.IsAbs(imp) {
				imp = filepath.Join(filepath.Dir(path), imp)
			}
			visit(filepath.Clean(imp))
		}
	}
	walk(file, src)
	if len(pin.Imports) == 0 {
		pin.Imports = nil
	}
	return pin, nil
}

// importPaths are the paths src's import directives name. It parses as
// the engine does (strict for .guard and .mld, else markdown; a strict
// module that does not parse is tried as markdown), with the parser
// itself: the parse cache is never used to decide what is pinned.
func importPaths(file string, src []byte) []string {
	key := importKey{file, sha256.Sum256(src)}
	if v, ok := importsSeen.Load(key); ok {
		return v.([]string)
	}
	out := parseImportPaths(file, src)
	if importsSeenN.Add(1) <= maxImportsSeen {
		importsSeen.Store(key, out)
	}
	return out
}

// importsSeen keeps, for a process that decides many events (guardrun
// serve re-checks the pins on each), the import paths of each module
// text it parsed, by name and content: the same bytes give the same
// paths. At most maxImportsSeen texts are kept.
var (
	importsSeen  sync.Map
	importsSeenN atomic.Int64
)

const maxImportsSeen = 4096

type importKey struct {
	file string
	sum  [sha256.Size]byte
}

// parseImportPaths is importPaths without the memo.
func parseImportPaths(file string, src []byte) []string {
	mode := ast.Markdown
	if guardrun.ModeForName(file) == guardrun.Strict {
		mode = ast.Strict
	}
	doc, err := grammar.Parse(file, src, mode)
	if err != nil && mode == ast.Strict {
		doc, err = grammar.Parse(file, src, ast.Markdown)
	}
	if err != nil || doc == nil {
		// The engine reports the syntax error; the bytes are pinned.
		return nil
	}
	var out []string
	for _, n := range doc.Body {
		if d, ok := n.(*ast.ImportDirective); ok && d.Path != "" {
			out = append(out, d.Path)
		}
	}
	return out
}

func sum(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}
