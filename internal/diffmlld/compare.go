package diffmlld

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
)

// Kind is how two outcomes disagree ("" when they agree).
type Kind string

// The kinds of disagreement.
const (
	Agree        Kind = ""
	OutputDiffer Kind = "output differs"
	OnlyOursErr  Kind = "guardrun errors, mlld does not"
	OnlyRefErr   Kind = "mlld errors, guardrun does not"
	ErrClassDiff Kind = "both error, different class"
	TimeoutDiff  Kind = "one side times out"
	// Deliberate is a disagreement on a program that exercises a SPEC
	// PORT row, where each side did what the row documents.
	Deliberate Kind = "deliberate difference (SPEC PORT)"
)

// ComparePort is Compare for p: a disagreement on a PORT program where
// both sides behaved as the row documents is Deliberate.
func ComparePort(p Program, ours, ref Outcome) Kind {
	k := Compare(ours, ref)
	if k != Agree && p.Port != nil && p.Port.Ours(ours) && p.Port.Ref(ref) {
		return Deliberate
	}
	return k
}

var newlineRun = regexp.MustCompile(`\n{3,}`)

// Normalize is mlld's own output comparison rule: CRLF to LF, runs of
// three or more newlines collapsed to two, surrounding white space trimmed.
func Normalize(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = newlineRun.ReplaceAllString(s, "\n\n")
	return strings.TrimSpace(s)
}

// Compare classifies the pair (ours, ref).
func Compare(ours, ref Outcome) Kind {
	switch {
	case ours.Class == ref.Class && ours.Class == OK:
		if Normalize(ours.Stdout) == Normalize(ref.Stdout) {
			return Agree
		}
		return OutputDiffer
	case ours.Class == ref.Class:
		return Agree
	case ours.Class == Timeout || ref.Class == Timeout:
		return TimeoutDiff
	case ref.Class == OK:
		return OnlyOursErr
	case ours.Class == OK:
		return OnlyRefErr
	}
	return ErrClassDiff
}

// Loose reports whether k is a disagreement only in the error's class
// (both sides reject the script).
func Loose(k Kind) bool { return k == Agree || k == ErrClassDiff }

// Cache remembers the outcomes of programs already run: generated
// programs repeat, and shrinking tries the same candidates more than once.
// Both peers are deterministic for the programs run here, so a cached pair
// stands for a fresh run. The zero Cache is ready to use.
type Cache struct {
	mu   sync.Mutex
	seen map[string][2]Outcome
	// RefDir, when set, keeps the reference's outcomes on disk between
	// runs (one JSON file per program): mlld 2.0.5 does not change, so a
	// re-run after a guardrun change runs only guardrun. Timeouts are not
	// kept.
	RefDir string
}

// Pair is Pair through the cache.
func (c *Cache) Pair(ctx context.Context, ours, ref Peer, p Program) (Outcome, Outcome) {
	key := programKey(p)
	c.mu.Lock()
	got, ok := c.seen[key]
	c.mu.Unlock()
	if ok {
		return got[0], got[1]
	}
	var o, r Outcome
	if kept, ok := c.loadRef(key); ok {
		o, r = PairWith(ctx, ours, p), kept
	} else {
		o, r = Pair(ctx, ours, ref, p)
		if ctx.Err() == nil {
			c.storeRef(key, r)
		}
	}
	if ctx.Err() == nil {
		c.mu.Lock()
		if c.seen == nil {
			c.seen = map[string][2]Outcome{}
		}
		c.seen[key] = [2]Outcome{o, r}
		c.mu.Unlock()
	}
	return o, r
}

// loadRef reads a kept reference outcome.
func (c *Cache) loadRef(key string) (Outcome, bool) {
	if c.RefDir == "" {
		return Outcome{}, false
	}
	b, err := os.ReadFile(filepath.Join(c.RefDir, key+".json"))
	if err != nil {
		return Outcome{}, false
	}
	var o Outcome
	if json.Unmarshal(b, &o) != nil {
		return Outcome{}, false
	}
	return o, true
}

// storeRef keeps a reference outcome (not a timeout, which may be the
// machine's load rather than the program).
func (c *Cache) storeRef(key string, o Outcome) {
	if c.RefDir == "" || o.Class == Timeout {
		return
	}
	b, err := json.Marshal(o)
	if err != nil || os.MkdirAll(c.RefDir, 0o755) != nil {
		return
	}
	tmp := filepath.Join(c.RefDir, key+".tmp")
	if os.WriteFile(tmp, b, 0o644) == nil {
		_ = os.Rename(tmp, filepath.Join(c.RefDir, key+".json"))
	}
}

// classifyVersion changes when classifyMlld does: a kept outcome is
// classified, so one kept by an older classifier is not reused.
const classifyVersion = 2

// programKey identifies a program by its script and files.
func programKey(p Program) string {
	h := sha256.New()
	fmt.Fprintf(h, "v%d", classifyVersion)
	names := make([]string, 0, len(p.Files))
	for n := range p.Files {
		names = append(names, n)
	}
	sort.Strings(names)
	fmt.Fprintf(h, "%q", p.Source)
	for _, n := range names {
		fmt.Fprintf(h, "%q%q", n, p.Files[n])
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Pair runs p through both peers, each in its own fresh directory (a
// script may write files), and returns both outcomes.
func Pair(ctx context.Context, ours, ref Peer, p Program) (Outcome, Outcome) {
	ch := make(chan Outcome, 1)
	go func() { ch <- PairWith(ctx, ours, p) }()
	r := PairWith(ctx, ref, p)
	return <-ch, r
}

// PairWith runs p with one peer, in a fresh directory of its own.
func PairWith(ctx context.Context, peer Peer, p Program) Outcome {
	dir, file, err := writeProgram(p)
	if dir != "" {
		defer os.RemoveAll(dir)
	}
	if err != nil {
		return Outcome{Class: Runtime, ErrName: "harness: " + err.Error()}
	}
	return peer.Run(ctx, dir, file)
}
