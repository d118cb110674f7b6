package interp

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"path/filepath"

	"github.com/guardrun/guardrun/interp/audit"
	"github.com/guardrun/guardrun/interp/code"
	"github.com/guardrun/guardrun/taint"
)

// Commands and files. A command (cmd, sh) may read any file of the base
// directory and write any file there, and the shell does not say which.
// So, failing closed:
//
//   - its output carries the labels the ledgers hold for every file that
//     is in the base directory when it runs, whether it read them or not;
//   - when labelled data reached it (its inputs, or those files), every
//     file of the base directory it created or changed is recorded in the
//     ledgers with that data's descriptor, so loading it, or a later
//     command reading it, restores the labels.
//
// Scripts whose commands see no labels pay nothing but one look at the
// ledgers per command.

// maxTrackedEntries bounds the walk of the base directory before a
// command that was given labelled data: a larger directory is refused
// rather than left untracked.
const maxTrackedEntries = 20000

// maxHashedTotal bounds how many bytes of changed files one command's
// records hash; the rest are found by path only.
const maxHashedTotal = 256 << 20

// runShellTracked runs req, a command of language lang whose inputs carry
// inputs. It returns the command's output and the descriptor the output
// carries besides inputs: the labels of the base directory's files.
func (in *interp) runShellTracked(req code.ShellRequest, inputs taint.Descriptor, lang string) (string, taint.Descriptor, error) {
	stored, err := in.files.labelledFiles()
	if err != nil {
		return "", stored, &Error{Kind: KindCommand, Err: err,
			Message: fmt.Sprintf("cannot read the audit ledger before running a command: %v", err),
			Hint:    "the command could read labelled files; make the audit ledgers readable"}
	}
	d := inputs.Merge(stored)
	if len(d.Labels()) == 0 {
		out, err := in.runShell(req)
		return out, stored, err
	}
	before, err := in.files.snapshot(maxTrackedEntries)
	if err != nil {
		return "", stored, &Error{Kind: KindCommand, Err: err,
			Message: fmt.Sprintf("refusing to run a command given labelled data (%s): %v", labelList(d), err),
			Hint:    "the files it writes could not be labelled; run the script with a smaller base directory (guardrun --dir, WithDir)"}
	}
	out, runErr := in.runShell(req)
	// A command that failed may still have written files.
	if err := in.files.recordChanges(before, d.WithTaint(taint.SourceFor(taint.BodyCode, lang))); err != nil {
		return "", stored, &Error{Kind: KindCommand, Err: err,
			Message: fmt.Sprintf("cannot record the labels of the files a command wrote: %v", err),
			Hint:    fmt.Sprintf("make the audit ledgers (%s under the base directory, and the state directory) writable", audit.RelPath)}
	}
	return out, stored, runErr
}

func labelList(d taint.Descriptor) string {
	return fmt.Sprintf("%q", d.Labels())
}

// labelledFiles is the union of what the ledgers restore for the files
// they label that are still in the base directory.
func (f *files) labelledFiles() (taint.Descriptor, error) {
	var d taint.Descriptor
	ledgers, err := f.ledgers()
	if err != nil {
		return d, err
	}
	root, err := f.open()
	if err != nil {
		return d, err
	}
	for _, l := range ledgers {
		files, err := l.Labelled()
		if err != nil {
			return d, err
		}
		for key, fd := range files {
			rel := filepath.FromSlash(key)
			if filepath.IsAbs(rel) {
				w := f.writeOf(rel)
				if w.Rel == "" {
					continue
				}
				rel = w.Rel
			}
			if _, err := root.Lstat(rel); err == nil {
				d = d.Merge(fd)
			}
		}
	}
	return d, nil
}

// snapshot stamps every file of the base directory, refusing a directory
// of more than limit entries.
func (f *files) snapshot(limit int) (map[string]fileStamp, error) {
	root, err := f.open()
	if err != nil {
		return nil, err
	}
	stamps := map[string]fileStamp{}
	n := 0
	err = fs.WalkDir(root.FS(), ".", func(p string, de fs.DirEntry, err error) error {
		if err != nil {
			// An entry that vanished or cannot be listed has nothing the
			// script could load either.
			return nil
		}
		if n++; n > limit {
			return fmt.Errorf("the base directory %s holds more than %d entries", f.base, limit)
		}
		if de.Type().IsRegular() {
			if info, err := de.Info(); err == nil {
				stamps[p] = stampOf(info)
			}
		}
		return nil
	})
	return stamps, err
}

// recordChanges records, with descriptor d, every regular file of the base
// directory that is not in before or whose stamp changed.
func (f *files) recordChanges(before map[string]fileStamp, d taint.Descriptor) error {
	root, err := f.open()
	if err != nil {
		return err
	}
	var writes []audit.Write
	hashed := int64(0)
	err = fs.WalkDir(root.FS(), ".", func(p string, de fs.DirEntry, err error) error {
		if err != nil || !de.Type().IsRegular() {
			return nil
		}
		info, err := de.Info()
		if err != nil {
			return nil
		}
		if old, ok := before[p]; ok && old == stampOf(info) {
			return nil
		}
		rel := filepath.FromSlash(p)
		w := audit.Write{Path: filepath.Join(f.resolvedBase(), rel), Rel: rel, Desc: d}
		if size := info.Size(); size <= maxHashedFile && hashed+size <= maxHashedTotal {
			hashed += size
			w.SHA256 = hashFile(root.FS(), p)
		}
		writes = append(writes, w)
		return nil
	})
	if err != nil {
		return err
	}
	return f.recordWrites(writes...)
}

// hashFile is the hex SHA-256 of the file at p, or "" when it cannot be
// read.
func hashFile(fsys fs.FS, p string) string {
	file, err := fsys.Open(path.Clean(p))
	if err != nil {
		return ""
	}
	defer file.Close()
	h := sha256.New()
	if _, err := io.Copy(h, io.LimitReader(file, maxHashedFile+1)); err != nil && !errors.Is(err, io.EOF) {
		return ""
	}
	return hex.EncodeToString(h.Sum(nil))
}
