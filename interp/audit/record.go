package audit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"time"

	"github.com/guardrun/guardrun/taint"
)

// RelPath is where the ledger lives, relative to the project root (for
// guardrun: the run's base directory).
var RelPath = filepath.Join(".mlld", "sec", "audit.jsonl")

// EventWrite is the event of a file-write record.
const EventWrite = "write"

// ModeAppend marks a record written by `append`: it adds to what the
// records before it restore instead of replacing it.
const ModeAppend = "append"

// timeLayout is RFC 3339 in UTC with milliseconds, as JavaScript's
// Date.toISOString writes it (mlld's timestamps).
const timeLayout = "2006-01-02T15:04:05.000Z07:00"

// Record is one "write" event of the ledger.
type Record struct {
	// TS is when the write happened (RFC 3339, UTC, milliseconds).
	TS string `json:"ts"`
	// Event is always EventWrite for records this package writes.
	Event string `json:"event"`
	// Path is the absolute path of the written file.
	Path string `json:"path"`
	// Taint is the written value's taint (its labels included).
	Taint []string `json:"taint"`
	// Writer is the first src:* entry of the taint, or nil.
	Writer *string `json:"writer"`
	// Labels is the written value's data labels. Our extension: mlld's
	// records lack it and mlld's reader derives labels from Taint.
	Labels []string `json:"labels"`
	// Mode is ModeAppend for appends and empty for overwrites. Our
	// extension, omitted for overwrites so such records stay mlld's shape.
	Mode string `json:"mode,omitempty"`
	// Rel is the file's path relative to the base directory with symbolic
	// links resolved (slash-separated); lookups prefer it to Path, so a
	// file keeps its labels whichever path reaches it. Our extension.
	Rel string `json:"rel,omitempty"`
	// SHA256 is the hex SHA-256 of the file's content after the write,
	// when known. Our extension.
	SHA256 string `json:"sha256,omitempty"`
}

// NewRecord builds the record of writing a value with descriptor d to the
// absolute path abs at time now; appendMode marks an append.
func NewRecord(abs string, d taint.Descriptor, appendMode bool, now time.Time) Record {
	r := Record{
		TS:     now.UTC().Format(timeLayout),
		Event:  EventWrite,
		Path:   abs,
		Taint:  nonNil(d.Taint()),
		Labels: nonNil(d.Labels()),
	}
	for _, t := range d.Taint() {
		if taint.IsSource(t) {
			w := t
			r.Writer = &w
			break
		}
	}
	if appendMode {
		r.Mode = ModeAppend
	}
	return r
}

// nonNil makes an absent list encode as [] rather than null, as mlld
// writes it.
func nonNil(list []string) []string {
	if list == nil {
		return []string{}
	}
	return list
}

// Encode renders r as one ledger line, newline included, so that the
// whole line can go to the file in a single write.
func (r Record) Encode() ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	// JSON.stringify does not escape <, > and &; neither do we, so paths
	// read the same in both tools' records.
	enc.SetEscapeHTML(false)
	if err := enc.Encode(r); err != nil {
		return nil, fmt.Errorf("encoding audit record for %s: %w", r.Path, err)
	}
	return buf.Bytes(), nil
}

// entry is what one parsed write record contributes to the index.
type entry struct {
	// path is the index key: rel when the record has one, else the
	// cleaned absolute path.
	path       string
	hash       string
	desc       taint.Descriptor
	appendMode bool
}

// parseLine reads one ledger line. It reports false for blank lines,
// lines that are not JSON objects, events other than "write" and records
// without a path: mlld skips those too, and other tools may share the
// ledger with events of their own.
func parseLine(line []byte) (entry, bool) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return entry{}, false
	}
	var raw map[string]any
	if err := json.Unmarshal(line, &raw); err != nil {
		return entry{}, false
	}
	if ev, _ := raw["event"].(string); ev != EventWrite {
		return entry{}, false
	}
	path, _ := raw["path"].(string)
	if path == "" {
		return entry{}, false
	}
	tnt := stringList(raw["taint"])
	var labels []string
	if l, ok := raw["labels"]; ok {
		labels = stringList(l)
	} else {
		// An mlld record: its labels are the taint entries that are not
		// provenance markers.
		for _, t := range tnt {
			if !taint.IsFactual(t) {
				labels = append(labels, t)
			}
		}
	}
	var sources []string
	// mlld's writer is a provenance string (a source of the written
	// value), which mlld restores into sources. Ours is a src:* marker
	// already in the taint, so it adds nothing there.
	if w, ok := raw["writer"].(string); ok && w != "" && !taint.IsFactual(w) {
		sources = []string{w}
	}
	mode, _ := raw["mode"].(string)
	key := filepath.Clean(path)
	if rel, _ := raw["rel"].(string); rel != "" {
		key = rel
	}
	hash, _ := raw["sha256"].(string)
	return entry{
		path:       key,
		hash:       hash,
		desc:       taint.Make(labels, tnt, sources),
		appendMode: mode == ModeAppend,
	}, true
}

// stringList converts a JSON array to strings the way mlld does
// (String(x) for every element); anything else is an empty list.
func stringList(v any) []string {
	arr, ok := v.([]any)
	if !ok {
		return nil
	}
	out := make([]string, 0, len(arr))
	for _, x := range arr {
		switch x := x.(type) {
		case string:
			out = append(out, x)
		case nil:
			out = append(out, "null")
		default:
			out = append(out, fmt.Sprint(x))
		}
	}
	return out
}
