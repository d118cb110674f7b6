package interp

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/guardrun/guardrun/internal/xdgdir"
	"github.com/guardrun/guardrun/interp/audit"
	"github.com/guardrun/guardrun/taint"
)

// maxHashedFile is the largest file whose content is hashed for the
// ledger; a larger file is found by its path only.
const maxHashedFile = 16 << 20

// stateLedgerName is the private ledger's path under the state root.
const stateLedgerName = "audit.jsonl"

// The private ledger is the one a script cannot forge. mlld's ledger lies
// under the base directory, where every command a script runs may write:
// a command could append a record that clears a file's labels, or empty
// the ledger. The private ledger lives under the user's state directory
// (Options.StateDir, else $XDG_STATE_HOME, else ~/.local/state), in
// guardrun/ledgers/<hash of the resolved base directory>/, owner-only.
// Records are keyed by base-relative path, so the private ledger is
// found again wherever the base is reached from; a moved project keeps
// its labels through the mirror (which moves with it) and content hashes.
//
// Both ledgers get every record; a lookup is the union of both, so the
// mirror can only add labels: a forged clean record, or an emptied mirror,
// changes nothing.

// stateHome is where the private ledgers live.
func (f *files) stateHome() (string, error) {
	var dir string
	if f.stateDir != "" {
		dir = filepath.Join(f.stateDir, xdgdir.Name)
	} else {
		d, err := xdgdir.State()
		if err != nil {
			return "", fmt.Errorf("no private audit ledger (embedders: Options.StateDir): %w", err)
		}
		dir = d
	}
	return filepath.Join(dir, "ledgers", baseKey(f.resolvedBase())), nil
}

// baseKey names the private ledger of a resolved base directory.
func baseKey(realBase string) string {
	sum := sha256.Sum256([]byte(realBase))
	return hex.EncodeToString(sum[:16])
}

// resolvedBase is the base directory with symbolic links resolved.
func (f *files) resolvedBase() string {
	f.baseOnce.Do(func() {
		f.realBase = f.base
		if r, err := filepath.EvalSymlinks(f.base); err == nil {
			f.realBase = r
		}
	})
	return f.realBase
}

// privateLedger returns the run's private ledger, or nil when it does not
// exist yet and create is false (no run has recorded anything for this
// base directory).
func (f *files) privateLedger(create bool) (*audit.Ledger, error) {
	f.ledgerMu.Lock()
	defer f.ledgerMu.Unlock()
	if f.private != nil {
		return f.private, nil
	}
	dir, err := f.stateHome()
	if err != nil {
		if !create {
			return nil, nil
		}
		return nil, err
	}
	if create {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, err
		}
	}
	root, err := os.OpenRoot(dir)
	if errors.Is(err, fs.ErrNotExist) && !create {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	f.stateRoot = root
	f.private = audit.NewPrivate(root, stateLedgerName)
	return f.private, nil
}

// mirrorLedger returns mlld's ledger under the base directory.
func (f *files) mirrorLedger() (*audit.Ledger, error) {
	root, err := f.open()
	if err != nil {
		return nil, err
	}
	f.ledgerMu.Lock()
	defer f.ledgerMu.Unlock()
	if f.mirror == nil {
		f.mirror = audit.New(root)
	}
	return f.mirror, nil
}

// writeOf names the file at abs for the ledger: its path with symbolic
// links resolved (those of its directory when it does not exist yet) and
// that path relative to the resolved base directory.
func (f *files) writeOf(abs string) audit.Write {
	real := abs
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		real = r
	} else if r, err := filepath.EvalSymlinks(filepath.Dir(abs)); err == nil {
		real = filepath.Join(r, filepath.Base(abs))
	}
	w := audit.Write{Path: real}
	if rel, err := filepath.Rel(f.resolvedBase(), real); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		w.Rel = rel
	}
	return w
}

// lookup is the union of what both ledgers restore for k.
func (f *files) lookup(k audit.Key) (taint.Descriptor, bool, error) {
	var d taint.Descriptor
	recorded := false
	ledgers, err := f.ledgers()
	if err != nil {
		return d, false, err
	}
	for _, l := range ledgers {
		ld, ok, err := l.LookupKey(k)
		if err != nil {
			return d, false, err
		}
		d, recorded = d.Merge(ld), recorded || ok
	}
	return d, recorded, nil
}

// ledgers are the ledgers to read: the private one when it exists, and
// the mirror.
func (f *files) ledgers() ([]*audit.Ledger, error) {
	var out []*audit.Ledger
	p, err := f.privateLedger(false)
	if err != nil {
		return nil, fmt.Errorf("opening the private audit ledger: %w", err)
	}
	if p != nil {
		out = append(out, p)
	}
	m, err := f.mirrorLedger()
	if err != nil {
		return nil, err
	}
	return append(out, m), nil
}

// recordWrites records ws in the private ledger and then in the mirror.
func (f *files) recordWrites(ws ...audit.Write) error {
	p, err := f.privateLedger(true)
	if err != nil {
		return fmt.Errorf("opening the private audit ledger: %w", err)
	}
	if err := p.RecordWrites(ws...); err != nil {
		return err
	}
	m, err := f.mirrorLedger()
	if err != nil {
		return err
	}
	return m.RecordWrites(ws...)
}
