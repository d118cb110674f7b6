package agent

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/guardrun/guardrun/internal/rawfile"
	"github.com/guardrun/guardrun/interp/action"
)

// Record is one decision-log line (AGENT.md §6).
type Record struct {
	Time    time.Time `json:"time"`
	Session string    `json:"session"`
	Event   Kind      `json:"event"`
	Tool    string    `json:"tool,omitempty"`
	CallID  string    `json:"call_id,omitempty"`
	// Cwd is the event's working directory (replay decides the event
	// in it again).
	Cwd string `json:"cwd,omitempty"`
	// Confined is Event.Confined: the call was decided as one the host
	// runs under the kernel floor.
	Confined bool     `json:"confined,omitempty"`
	Decision Outcome  `json:"decision"`
	Reason   string   `json:"reason,omitempty"`
	Rule     string   `json:"rule,omitempty"`
	Guard    string   `json:"guard,omitempty"`
	Class    Class    `json:"class,omitempty"`
	Labels   []string `json:"labels,omitempty"`
	// Approval is set when the engine's Approver settled an ask: what
	// the human answered (Decision is then the outcome after it).
	Approval *Approval      `json:"approval,omitempty"`
	Input    map[string]any `json:"input,omitempty"`
	// Brought is, for a tool.after, what its output brought into the
	// session (labels, context-wide or as fingerprints: hashes, never the
	// text), so a replay rebuilds the state later decisions read.
	Brought []Brought `json:"brought,omitempty"`
	// Hashes are the files the event hashed, by absolute path: for a
	// write, what each target held when it was decided
	// (`@mx.tools.current`); after a read or write, what the session
	// recorded it saw (`@mx.tools.reads`). "" is no file there (or one
	// too large or outside the workspace). A replay decides on these,
	// not on the files as they are when it runs.
	Hashes map[string]string `json:"hashes,omitempty"`
	// LatencyUS is the decision's latency in microseconds.
	LatencyUS  int64  `json:"latency_us"`
	PolicyHash string `json:"policy_hash"`

	// masks are the texts the line must not hold: the inputs it masks
	// and the model text it digests. The reason, set when the decision
	// is final, is masked with them (maskText).
	masks []string
}

// Masked replaces a value that carries a confidentiality label in the
// log.
const Masked = "[masked]"

// decisionLog writes one JSON line per record with one Write call, so
// records of concurrent writers sharing an O_APPEND file never
// interleave.
type decisionLog struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *decisionLog) write(r *Record) error {
	if l == nil || l.w == nil {
		return nil
	}
	b := append(r.AppendJSON(make([]byte, 0, 512)), '\n')
	l.mu.Lock()
	defer l.mu.Unlock()
	_, err := l.w.Write(b)
	return err
}

// minQuote is the shortest run of a masked text that maskText masks
// where the reason quotes a part of it (a capability denial quotes a
// command's first word); minWhole the shortest masked text masked where
// the reason quotes it whole.
const (
	minQuote = 8
	minWhole = 4
)

// directSearch bounds the bytes maskText compares searching the reason
// for each run of a masked text directly; a longer text (a file's
// content, a model request) is looked up in an index of the reason
// (quoteWindows) instead.
const directSearch = 1 << 15

// maskText is s with every part that quotes one of texts replaced by
// Masked: each occurrence of a text of minWhole bytes or more, and each
// run of minQuote bytes or more that also occurs in a text.
func maskText(s string, texts []string) string {
	if s == "" || len(texts) == 0 {
		return s
	}
	var cover []bool
	mark := func(i, n int) {
		if cover == nil {
			cover = make([]bool, len(s))
		}
		for k := i; k < i+n; k++ {
			cover[k] = true
		}
	}
	var windows *windowSet
	var pairs pairSet
	paired := false
	for _, t := range texts {
		switch {
		case len(t) < minWhole:
		case len(t) < minQuote:
			for i := 0; ; {
				j := strings.Index(s[i:], t)
				if j < 0 {
					break
				}
				mark(i+j, len(t))
				i += j + 1
			}
		case (len(t)-minQuote+1)*len(s) <= directSearch:
			// A short text against a short reason: search the reason
			// for each of the text's runs, with no index to build, but
			// only for a run whose every byte pair the reason holds
			// (most runs of a secret have one it does not).
			if !paired {
				pairs.add(s)
				paired = true
			}
			held := 0 // pairs the reason holds, ending at t[k:k+2]
			for k := 0; k+1 < len(t); k++ {
				if !pairs.has(t[k], t[k+1]) {
					held = 0
					continue
				}
				if held++; held < minQuote-1 {
					continue
				}
				j := k + 2 - minQuote
				run := t[j : j+minQuote]
				for i := 0; ; {
					at := strings.Index(s[i:], run)
					if at < 0 {
						break
					}
					mark(i+at, minQuote)
					i += at + 1
				}
			}
		default:
			if windows == nil {
				windows = quoteWindows(s)
			}
			windows.each(t, func(at int) { mark(at, minQuote) })
		}
	}
	if cover == nil {
		return s
	}
	return renderMasked(s, cover)
}

// renderMasked is s with each covered run replaced by Masked.
func renderMasked(s string, cover []bool) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		if !cover[i] {
			// A masked run takes the whole characters it touches.
			j := i + 1
			for j < len(s) && !cover[j] {
				j++
			}
			end := j
			for end > i && j < len(s) && !utf8.RuneStart(s[end]) {
				end--
			}
			b.WriteString(s[i:end])
			i = j
			continue
		}
		for i < len(s) && (cover[i] || !utf8.RuneStart(s[i])) {
			i++
		}
		b.WriteString(Masked)
	}
	return b.String()
}

// pairSet is the byte pairs of a text, hashed into 4096 bits: a pair
// it does not hold is in no substring of the text.
type pairSet [64]uint64

func pairBit(a, b byte) uint { return uint((uint32(a)<<8|uint32(b))*0x9e3779b1) >> 20 }

func (p *pairSet) add(s string) {
	for i := 0; i+1 < len(s); i++ {
		k := pairBit(s[i], s[i+1])
		p[k>>6] |= 1 << (k & 63)
	}
}

func (p *pairSet) has(a, b byte) bool {
	k := pairBit(a, b)
	return p[k>>6]&(1<<(k&63)) != 0
}

// windowSet is the minQuote-byte runs of a text (the reason, a few
// hundred bytes), each as its eight bytes read as a word, sorted in one
// flat table, with a bit filter in front sized to it: building it costs
// one allocation and a sort of the reason's runs, and looking up every
// run of a long masked text (a model request of a megabyte) a load, a
// multiply and a bit test per byte. So masking costs what the reason and
// the masked texts cost, not a map entry per byte of the reason.
type windowSet struct {
	runs   []window
	filter []uint64
	// shift turns a run's hash into its filter bit.
	shift uint
	// left counts the distinct runs not found yet.
	left int
}

// window is one run: its word, where it starts, and whether a masked
// text held it already (set on the first run of equal words).
type window struct {
	key   uint64
	at    int32
	found bool
}

func quoteWindows(s string) *windowSet {
	n := len(s) - minQuote + 1
	if n <= 0 {
		return &windowSet{}
	}
	// About 16 filter bits per run: a run of a masked text that the
	// reason does not hold mostly stops at the filter.
	bits := uint(6)
	for 1<<bits < 16*n {
		bits++
	}
	w := &windowSet{runs: make([]window, n), filter: make([]uint64, 1<<(bits-6)), shift: 64 - bits}
	for i := range w.runs {
		k := word(s, i)
		w.runs[i] = window{key: k, at: int32(i)}
		h := windowHash(k) >> w.shift
		w.filter[h>>6] |= 1 << (h & 63)
	}
	slices.SortFunc(w.runs, func(a, b window) int { return cmp.Compare(a.key, b.key) })
	for i := range w.runs {
		if i == 0 || w.runs[i].key != w.runs[i-1].key {
			w.left++
		}
	}
	return w
}

// word is the eight bytes of s at i, little-endian (one load).
func word(s string, i int) uint64 {
	s = s[i : i+8]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

func windowHash(k uint64) uint64 { return k * 0x9E3779B97F4A7C15 }

// each calls f with the offset of every run of the set that occurs in t,
// once: a run found is not reported again.
func (w *windowSet) each(t string, f func(at int)) {
	for j := 0; j+minQuote <= len(t) && w.left > 0; j++ {
		k := word(t, j)
		h := windowHash(k) >> w.shift
		if w.filter[h>>6]&(1<<(h&63)) == 0 {
			continue
		}
		i, ok := slices.BinarySearchFunc(w.runs, k, func(r window, k uint64) int { return cmp.Compare(r.key, k) })
		if !ok || w.runs[i].found {
			continue
		}
		w.runs[i].found = true
		w.left--
		for ; i < len(w.runs) && w.runs[i].key == k; i++ {
			f(int(w.runs[i].at))
		}
	}
}

// appendTexts appends the strings v holds: v itself, or its leaves.
func appendTexts(list []string, v any) []string {
	switch x := v.(type) {
	case string:
		return append(list, x)
	case map[string]any:
		for _, e := range x {
			list = appendTexts(list, e)
		}
	case []any:
		for _, e := range x {
			list = appendTexts(list, e)
		}
	}
	return list
}

// textDigest stands in the log for a prompt or a model request or
// response: its length in bytes and the first 16 hex digits of its
// SHA-256, never the text, which would put whole conversations in the
// log (once per model call) and whatever secret they hold that carries
// no label. The masked "text" makes a replay skip the event.
func textDigest(s string) map[string]any {
	h := sha256.New()
	io.WriteString(h, s)
	return map[string]any{"text": Masked, "bytes": len(s), "sha256": hex.EncodeToString(h.Sum(nil)[:8])}
}

// DefaultLogMaxBytes is the size past which OpenLog rotates a decision
// log.
const DefaultLogMaxBytes = 10 << 20

// RotatedLogPath is where OpenLog moves a full decision log: path.1.
func RotatedLogPath(path string) string { return path + ".1" }

// OpenLog opens the decision log at path for appending (0600, in a 0700
// directory; every record is one write, so concurrent writers never
// tear a line). When the log has reached maxBytes (DefaultLogMaxBytes
// when maxBytes is 0; never when it is negative) it is first rotated:
// renamed RotatedLogPath(path), replacing the older generation, and a
// new log started, so the log holds at most about twice maxBytes. A log
// that cannot be rotated is appended to.
func OpenLog(path string, maxBytes int64) (*os.File, error) {
	if maxBytes == 0 {
		maxBytes = DefaultLogMaxBytes
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("decision log: %v", err)
	}
	f, err := rawfile.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("decision log: %v", err)
	}
	if maxBytes < 0 {
		return f, nil
	}
	st, err := f.Stat()
	if err != nil || st.Size() < maxBytes {
		return f, nil
	}
	if err := rotateLog(f, path, st); err != nil {
		// The log cannot be moved (path.1 is a directory, the directory
		// is read-only…): records still go to it, and every decision is
		// still logged, rather than every call refused.
		return f, nil
	}
	f.Close()
	f, err = rawfile.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("decision log: %v", err)
	}
	return f, nil
}

// rotateLog renames the full log f (opened at path) to path.1. Hooks
// that find it full at once take turns under its lock, and only one
// whose path still names f renames it: the others would move the new
// log over the full one.
func rotateLog(f *os.File, path string, st os.FileInfo) error {
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		return err
	}
	defer syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	cur, err := os.Stat(path)
	if err != nil || !os.SameFile(cur, st) {
		return nil
	}
	return os.Rename(path, RotatedLogPath(path))
}

// UnmarshalJSON reads a decision-log line. A record written before
// decisions were one enum logged events without a decision (lifecycle
// events) as "decision":""; it reads as Allow, what those events got.
// Any other unknown word is an error.
func (r *Record) UnmarshalJSON(b []byte) error {
	type plain Record
	var p struct {
		plain
		Decision string `json:"decision"`
	}
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	*r = Record(p.plain)
	if p.Decision == "" {
		r.Decision = Allow
		return nil
	}
	a, err := action.Parse(p.Decision)
	if err != nil {
		return fmt.Errorf("decision: %v", err)
	}
	r.Decision = a
	return nil
}
