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
	"time"

	"github.com/guardrun/guardrun"
	"github.com/guardrun/guardrun/ast"
)

// Pin is the approved content of a workspace policy: the SHA-256 of the
// file and of every module it imports (by absolute path).
type Pin struct {
	SHA256   string            `json:"sha256"`
	Imports  map[string]string `json:"imports,omitempty"`
	Approved time.Time         `json:"approved"`
}

// TrustStore keeps the user's approvals of workspace policies
// (direnv-style): a JSON file, 0600 in a 0700 directory.
type TrustStore struct{ Path string }

// DefaultTrustStore is $XDG_DATA_HOME/guardrun/trust.json (or
// ~/.local/share/guardrun/trust.json).
func DefaultTrustStore() (*TrustStore, error) {
	base, err := xdg("XDG_DATA_HOME", ".local/share")
	if err != nil {
		return nil, err
	}
	return &TrustStore{Path: filepath.Join(base, "guardrun", "trust.json")}, nil
}

// xdg is an XDG base directory: the variable if set to an absolute path,
// else fallback under the home directory.
func xdg(env, fallback string) (string, error) {
	if v := os.Getenv(env); v != "" && filepath.IsAbs(v) {
		return v, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("no home directory for %s: %v", env, err)
	}
	return filepath.Join(home, filepath.FromSlash(fallback)), nil
}

func (t *TrustStore) load() (map[string]Pin, error) {
	b, err := os.ReadFile(t.Path)
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
func (t *TrustStore) Trust(file string) (string, Pin, error) {
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
	pins, err := t.load()
	if err != nil {
		return err
	}
	approve := fmt.Sprintf("review it, then approve it with: guardrun trust %s", file)
	old, ok := pins[file]
	if !ok {
		return fmt.Errorf("workspace policy %s is not approved, so every tool call is denied; %s", file, approve)
	}
	now, err := Fingerprint(file)
	if err != nil {
		return fmt.Errorf("workspace policy %s: %v", file, err)
	}
	if now.SHA256 != old.SHA256 {
		return fmt.Errorf("workspace policy %s changed since you approved it, so every tool call is denied; %s", file, approve)
	}
	for _, p := range sortedPins(now.Imports, old.Imports) {
		if now.Imports[p] != old.Imports[p] {
			return fmt.Errorf("module %s imported by workspace policy %s is new or changed since you approved it, so every tool call is denied; %s", p, file, approve)
		}
	}
	return nil
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
// it imports. A module that cannot be read is hashed as missing, so it
// changing later still shows.
func Fingerprint(file string) (Pin, error) {
	src, err := os.ReadFile(file)
	if err != nil {
		return Pin{}, fmt.Errorf("cannot read policy: %v", err)
	}
	pin := Pin{SHA256: sum(src), Imports: map[string]string{}}
	seen := map[string]bool{file: true}
	var walk func(path string, src []byte)
	walk = func(path string, src []byte) {
		prg, err := guardrun.Compile(path, src)
		if err != nil {
			// The engine reports the syntax error; the bytes are pinned.
			return
		}
		for _, n := range prg.Document().Body {
			d, ok := n.(*ast.ImportDirective)
			if !ok || d.Path == "" || strings.HasPrefix(d.Path, "@") {
				continue
			}
			p := d.Path
			if !filepath.IsAbs(p) {
				p = filepath.Join(filepath.Dir(path), p)
			}
			p = filepath.Clean(p)
			if seen[p] {
				continue
			}
			seen[p] = true
			b, err := os.ReadFile(p)
			if err != nil {
				pin.Imports[p] = "missing"
				continue
			}
			pin.Imports[p] = sum(b)
			walk(p, b)
		}
	}
	walk(file, src)
	if len(pin.Imports) == 0 {
		pin.Imports = nil
	}
	return pin, nil
}

func sum(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}
