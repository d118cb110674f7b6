package agent

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// sessionJSON is a session's exported state in a form two stores can be
// compared by: times as RFC 3339 with their offset (what a call object
// shows), empty and nil slices and maps alike.
func sessionJSON(t testing.TB, s *Session) string {
	c := cloneSession(s)
	for i := range c.Origins {
		if len(c.Origins[i].Labels) == 0 {
			c.Origins[i].Labels = nil
		}
	}
	b, err := json.Marshal(c)
	require.NoError(t, err)
	return string(b)
}

// mutation is one random change to a session, drawn once and applied to
// each store's copy, through the engine's own mutation paths where there
// is one and directly on the fields otherwise.
type mutation func(s *Session)

var zones = []*time.Location{time.UTC, time.Local, time.FixedZone("CET", 3600), time.FixedZone("", -5*3600-1800)}

func randomMutation(r *rand.Rand, lim Limits, step int) (string, mutation) {
	str := func(prefix string) string { return fmt.Sprintf("%s%d", prefix, r.Intn(8)) }
	when := time.Date(2026, 3, 1, 12, 0, 0, r.Intn(1e9), zones[r.Intn(len(zones))]).Add(time.Duration(step) * time.Minute)
	switch r.Intn(17) {
	case 0, 1, 2:
		c := Call{Seq: step, Name: str("Tool"), Decision: []Outcome{Allow, Deny, Ask}[r.Intn(3)], Time: when, CallID: str("id-"), Command: str("cmd ")}
		return "addCall", func(s *Session) { s.Seq++; s.addCall(c, lim) }
	case 3:
		ev := Event{Tool: str("Tool"), CallID: str("id-")}
		if r.Intn(2) == 0 {
			ev.Error = "boom"
		}
		return "setOutcome", func(s *Session) { s.setOutcome(ev) }
	case 4:
		i, d := r.Int(), []Outcome{Allow, Deny}[r.Intn(2)]
		return "set decision", func(s *Session) {
			if len(s.Calls) > 0 {
				s.redecide(s.Calls[i%len(s.Calls)].Seq, d)
			}
		}
	case 5, 6:
		o := Origin{Seq: step, Event: ToolAfter, Tool: str("Tool"), CallID: str("id-"), Labels: []string{str("label"), str("src:")}}
		if r.Intn(3) == 0 {
			o.Why = str("why ")
		}
		if r.Intn(3) == 0 {
			o.File = str("src/file")
		}
		ctx, text := r.Intn(2) == 0, strings.Repeat(str("secret text "), 1+r.Intn(20))
		return "addOrigin", func(s *Session) {
			i := s.addOrigin(o, lim)
			if ctx {
				s.addContext(i)
			} else {
				s.addPrints(text, i, lim)
			}
		}
	case 7:
		k := str("approval ")
		return "approve", func(s *Session) {
			if s.Approvals == nil {
				s.Approvals = map[string]bool{}
			}
			s.Approvals[k] = !s.Approvals[k]
		}
	case 8:
		k, del := str("shape "), r.Intn(3) == 0
		return "retry", func(s *Session) {
			if del {
				delete(s.Retries, k)
				return
			}
			if s.Retries == nil {
				s.Retries = map[string]int{}
			}
			s.Retries[k]++
		}
	case 9:
		k, v, del := "/src/"+str("f"), fmt.Sprintf("%064x", r.Uint64()), r.Intn(4) == 0
		return "read", func(s *Session) {
			if del {
				delete(s.Reads, k)
				return
			}
			if s.Reads == nil {
				s.Reads = map[string]string{}
			}
			s.Reads[k] = v
		}
	case 10:
		i, h := r.Int(), r.Uint64()
		return "overwrite print", func(s *Session) {
			if len(s.Prints) > 0 {
				s.Prints[i%len(s.Prints)].Hash = h
			}
		}
	case 11:
		i, l := r.Int(), str("relabel")
		return "relabel origin", func(s *Session) {
			if len(s.Origins) > 0 {
				o := &s.Origins[i%len(s.Origins)]
				if len(o.Labels) > 0 {
					o.Labels[0] = l
				} else {
					o.Labels = append(o.Labels, l)
				}
			}
		}
	case 12:
		i, j := r.Int(), r.Int()
		return "cut calls", func(s *Session) {
			if n := len(s.Calls); n > 0 {
				a, b := i%n, j%n
				s.Calls = append(s.Calls[:min(a, b)], s.Calls[max(a, b):]...)
				s.callsMx = nil
			}
		}
	case 13:
		field := r.Intn(8)
		return "clear", func(s *Session) {
			switch field {
			case 0:
				s.Calls, s.callsMx = nil, nil
			case 1:
				s.Prints, s.index = nil, nil
			case 2:
				s.Context = []int{}
			case 3:
				s.Approvals = map[string]bool{}
			case 4:
				s.Retries = nil
			case 5:
				s.Reads = nil
			case 6:
				s.Origins = nil
			case 7:
				s.Counts = nil
			}
		}
	case 15:
		ev := Event{Tool: str("Tool")}
		text, labels := strings.Repeat(str("output "), r.Intn(4)), []string{str("label")}
		if r.Intn(4) == 0 {
			labels = append(labels, "secret")
		}
		return "keepOutput", func(s *Session) { s.Seq++; s.keepOutput(ev, toolDef{}, text, labels) }
	case 14:
		n := r.Intn(3)
		return "drop context", func(s *Session) {
			if len(s.Context) > n {
				s.Context = s.Context[n:]
			}
		}
	default:
		return "nothing", func(s *Session) {}
	}
}

// TestFileStoreMatchesMemoryStore applies random sequences of session
// changes through a file store and the memory store and requires the
// same session from both at every step; the file store is reopened
// (as the next hook process would) every few steps, and at the end.
func TestFileStoreMatchesMemoryStore(t *testing.T) {
	ctx := context.Background()
	lim := Limits{MaxPrints: 400, MaxCalls: 30, MaxOrigins: 12}.orDefault()
	seeds := 40
	if testing.Short() {
		seeds = 8
	}
	for seed := 0; seed < seeds; seed++ {
		r := rand.New(rand.NewSource(int64(seed)))
		dir := filepath.Join(t.TempDir(), "s")
		clock := time.Date(2026, 3, 1, 0, 0, 0, 0, time.FixedZone("", 7200))
		now := func() time.Time { return clock }
		open := func() *FileStore {
			fs, err := NewFileStore(dir)
			require.NoError(t, err)
			fs.now = now
			return fs
		}
		fs, ms := open(), NewMemoryStore()
		ms.now = now
		var trail []string
		for step := 0; step < 400; step++ {
			clock = clock.Add(time.Duration(r.Intn(5000)) * time.Millisecond)
			name, m := randomMutation(r, lim, step)
			trail = append(trail, name)
			var want string
			require.NoError(t, ms.Update(ctx, "x", func(s *Session) error {
				m(s)
				want = sessionJSON(t, s)
				return nil
			}))
			require.NoError(t, fs.Update(ctx, "x", func(s *Session) error {
				m(s)
				require.Equal(t, want, sessionJSON(t, s), "seed %d step %d after %v", seed, step, trail[max(0, len(trail)-5):])
				return nil
			}))
			if r.Intn(10) == 0 {
				fs = open()
			}
		}
		fresh := open()
		var got, want string
		require.NoError(t, fresh.Update(ctx, "x", func(s *Session) error { got = sessionJSON(t, s); return nil }))
		require.NoError(t, ms.Update(ctx, "x", func(s *Session) error { want = sessionJSON(t, s); return nil }))
		require.Equal(t, want, got, "seed %d after reload", seed)
	}
}

// TestJournalCompacts: updates append deltas until the bound, then the
// journal is one snapshot again; the session is whole either way.
func TestJournalCompacts(t *testing.T) {
	ctx := context.Background()
	fs, err := NewFileStore(filepath.Join(t.TempDir(), "s"))
	require.NoError(t, err)
	read := func() (*Session, journalShape) {
		b, err := os.ReadFile(fs.path("x") + journalExt)
		require.NoError(t, err)
		s, shape, err := decodeJournalKey(b, fs.key)
		require.NoError(t, err)
		return s, shape
	}
	compacted := false
	for i := 1; i <= 3*maxDeltas; i++ {
		require.NoError(t, fs.Update(ctx, "x", func(s *Session) error {
			s.Seq++
			s.addCall(Call{Seq: s.Seq, Name: "Bash", Time: time.Now()}, DefaultLimits)
			return nil
		}))
		s, shape := read()
		require.Equal(t, i, s.Seq)
		require.Len(t, s.Calls, i)
		require.LessOrEqual(t, shape.deltas, maxDeltas)
		if i > 1 && shape.deltas == 0 {
			compacted = true
		}
	}
	require.True(t, compacted, "the journal was compacted")
}

// TestJournalDamageFailsClosed: a torn, flipped or foreign journal is an
// error naming the file and how to reset it; fn never sees an empty
// session, and the engine denies.
func TestJournalDamageFailsClosed(t *testing.T) {
	ctx := context.Background()
	damage := map[string]func([]byte) []byte{
		"torn tail":       func(b []byte) []byte { return b[:len(b)-3] },
		"torn header":     func(b []byte) []byte { return b[:len(b)-(len(b)-len(journalMagic))+4] },
		"flipped bit":     func(b []byte) []byte { b[len(b)-2] ^= 4; return b },
		"flipped in snap": func(b []byte) []byte { b[len(journalMagic)+recHeader+3] ^= 1; return b },
		"empty":           func(b []byte) []byte { return nil },
		"old json":        func(b []byte) []byte { return []byte(`{"id":"x"}`) },
		"snapshot only once": func(b []byte) []byte {
			return appendRecord(b, nil, &Session{ID: "x"})
		},
		"delta first": func(b []byte) []byte {
			return appendRecord([]byte(journalMagic), &Session{}, &Session{ID: "x", Seq: 1})
		},
		"other session": func(b []byte) []byte {
			return appendRecord(b, &Session{ID: "y"}, &Session{ID: "y", Seq: 9})
		},
		"edit past the end": func(b []byte) []byte {
			calls := make([]Call, 50)
			for i := range calls {
				calls[i].Seq = i
			}
			return appendRecord(b, &Session{ID: "x", Calls: calls}, &Session{ID: "x", Calls: calls[40:]})
		},
	}
	for name, hurt := range damage {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "s")
			fs, err := NewFileStore(dir)
			require.NoError(t, err)
			e, err := New(ctx, Config{Store: fs, Policies: []Policy{{Name: "p.guard", Source: []byte(concPolicy)}}})
			require.NoError(t, err)
			defer e.Close()
			ev := Event{Kind: ToolBefore, Session: "x", Tool: "Bash", Input: map[string]any{"command": "ls"}}
			for i := 0; i < 3; i++ {
				require.Equal(t, Allow, e.Decide(ctx, ev).Outcome)
			}
			path := fs.path("x") + journalExt
			b, err := os.ReadFile(path)
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(path, hurt(b), 0o600))

			called := false
			err = fs.Update(ctx, "x", func(*Session) error { called = true; return nil })
			require.Error(t, err)
			require.False(t, called, "fn ran on a session the store could not read")
			require.ErrorContains(t, err, path)
			require.ErrorContains(t, err, "corrupt")
			require.ErrorContains(t, err, "delete it to reset the session")
			d := e.Decide(ctx, ev)
			require.Equal(t, Deny, d.Outcome)
			require.Contains(t, d.Reason, "corrupt")
		})
	}
}

// asV2 is s as an earlier version wrote it: a version-3 snapshot with
// the version-2 magic and CRC-32 (IEEE) checksums.
func asV2(t *testing.T, s *Session) []byte {
	out := asV3(s)
	copy(out, journalMagicV2)
	for pos := len(journalMagic); pos < len(out); {
		n := int(binary.LittleEndian.Uint32(out[pos:]))
		body := out[pos+recHeader : pos+recHeader+n]
		binary.LittleEndian.PutUint32(out[pos+4:], crc32.ChecksumIEEE(body))
		pos += recHeader + n
	}
	_, _, err := decodeJournal(out)
	require.NoError(t, err)
	return out
}

// asV3 is s as version 3 wrote it: no counts, no origin why, unkeyed
// checksums.
func asV3(s *Session) []byte {
	out := appendEditAs([]byte(journalMagicV3), nil, nil, s, sumKey{}, 3)
	for pos := len(journalMagic); pos < len(out); {
		n := int(binary.LittleEndian.Uint32(out[pos:]))
		binary.LittleEndian.PutUint32(out[pos+4:], journalSum(out[pos+recHeader:pos+recHeader+n]))
		pos += recHeader + n
	}
	return out
}

// TestFileStoreReadsVersion2: a journal an earlier version wrote (CRC-32
// checksums) carries on, is rewritten in the current format by the next
// update, and is checked like any other.
func TestFileStoreReadsVersion2(t *testing.T) {
	ctx := context.Background()
	fs, err := NewFileStore(filepath.Join(t.TempDir(), "s"))
	require.NoError(t, err)
	for i := range 3 {
		require.NoError(t, fs.Update(ctx, "x", func(s *Session) error {
			s.Seq++
			s.Calls = append(s.Calls, Call{Seq: i, Name: "Bash", Decision: Allow, Command: "ls"})
			return nil
		}))
	}
	path := fs.path("x") + journalExt
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	want, _, err := decodeJournalKey(b, fs.key)
	require.NoError(t, err)
	v2 := asV2(t, want)
	// An earlier journal's calls stand in for the counts it lacks.
	want.Counts = countCalls(want.Calls)
	require.NoError(t, os.WriteFile(path, v2, 0o600))
	// A store of that version kept no index of seen sessions.
	require.NoError(t, os.Remove(fs.seenPath()))
	require.NoError(t, fs.Update(ctx, "x", func(s *Session) error {
		require.Equal(t, sessionJSON(t, want), sessionJSON(t, s))
		s.Seq++
		return nil
	}))
	b, err = os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, journalMagic, string(b[:len(journalMagic)]), "the next update rewrites the journal")
	got, shape, err := decodeJournalKey(b, fs.key)
	require.NoError(t, err)
	require.Equal(t, 0, shape.deltas)
	require.Equal(t, 4, got.Seq)
	require.Len(t, got.Calls, 3)

	// A damaged version-2 journal is corrupt, as any other.
	v2[len(v2)-2] ^= 4
	_, _, err = decodeJournal(v2)
	require.ErrorContains(t, err, "checksum")
}

// TestFileStoreReadsVersion4: a journal of version 4 (origins without
// a file) carries on with its origins as they were, is rewritten in the
// current format by the next update, and the file of an origin added
// then is kept.
func TestFileStoreReadsVersion4(t *testing.T) {
	ctx := context.Background()
	fs, err := NewFileStore(filepath.Join(t.TempDir(), "s"))
	require.NoError(t, err)
	require.NoError(t, fs.Update(ctx, "x", func(s *Session) error {
		s.Seq = 2
		s.addOrigin(Origin{Seq: 2, Event: ToolAfter, Tool: "Read", Labels: []string{"secret"}, Why: "w"}, DefaultLimits)
		return nil
	}))
	path := fs.path("x") + journalExt
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	want, _, err := decodeJournalKey(b, fs.key)
	require.NoError(t, err)
	v4 := appendEditAs([]byte(journalMagicV4), nil, nil, want, fs.key, 4)
	require.NotEqual(t, b, v4, "version 4 encodes an origin differently")
	require.NoError(t, os.WriteFile(path, v4, 0o600))
	require.NoError(t, fs.Update(ctx, "x", func(s *Session) error {
		require.Equal(t, sessionJSON(t, want), sessionJSON(t, s))
		s.Seq++
		s.addOrigin(Origin{Seq: 3, Event: ToolAfter, Tool: "Read", Labels: []string{"secret"}, File: ".env"}, DefaultLimits)
		return nil
	}))
	b, err = os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, journalMagic, string(b[:len(journalMagic)]), "the next update rewrites the journal")
	require.NoError(t, fs.Update(ctx, "x", func(s *Session) error {
		require.Len(t, s.Origins, 2)
		require.Equal(t, "w", s.Origins[0].Why)
		require.Equal(t, ".env", s.Origins[1].File)
		return nil
	}))
}

// crc32IEEE is hash/crc32's IEEE checksum.
func TestCRC32IEEE(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for _, n := range []int{0, 1, 7, 8, 9, 63, 64, 65, 1000} {
		b := make([]byte, n)
		r.Read(b)
		require.Equal(t, crc32.ChecksumIEEE(b), crc32IEEE(b), "%d bytes", n)
	}
}

// journalSum changes when any one bit of a record flips, and when the
// record is cut short or grows by a zero byte.
func TestJournalSumCatchesFlips(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	for _, n := range []int{1, 8, 13, 64, 301} {
		b := make([]byte, n)
		r.Read(b)
		sum := journalSum(b)
		for i := range n * 8 {
			b[i/8] ^= 1 << (i % 8)
			require.NotEqual(t, sum, journalSum(b), "bit %d of %d bytes", i, n)
			b[i/8] ^= 1 << (i % 8)
		}
		require.NotEqual(t, sum, journalSum(b[:n-1]))
		require.NotEqual(t, sum, journalSum(append(b[:n:n], 0)))
	}
}

// TestKeyedSum: the keyed checksum catches single-bit flips and depends
// on each word of the key.
func TestKeyedSum(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	k := sumKey{r.Uint64(), r.Uint64()}
	for _, n := range []int{0, 1, 8, 13, 64, 301} {
		b := make([]byte, n)
		r.Read(b)
		sum := keyedSum(k, b)
		for i := range n * 8 {
			b[i/8] ^= 1 << (i % 8)
			require.NotEqual(t, sum, keyedSum(k, b), "bit %d of %d bytes", i, n)
			b[i/8] ^= 1 << (i % 8)
		}
		for w := range 2 {
			for bit := 0; bit < 64; bit += 7 {
				k2 := k
				k2[w] ^= 1 << bit
				require.NotEqual(t, sum, keyedSum(k2, b), "key word %d bit %d, %d bytes", w, bit, n)
			}
		}
	}
}

// TestFileStoreReadsLegacyJSON: a session the JSON store saved carries on
// (its taint is not forgotten across the upgrade) and becomes a journal.
func TestFileStoreReadsLegacyJSON(t *testing.T) {
	ctx := context.Background()
	fs, err := NewFileStore(filepath.Join(t.TempDir(), "s"))
	require.NoError(t, err)
	old := &Session{ID: "x", Created: time.Now().Add(-time.Minute), Updated: time.Now().Add(-time.Minute), Seq: 4,
		Origins: []Origin{{Seq: 2, Event: ToolAfter, Tool: "Read", Labels: []string{"secret"}}},
		Prints:  []Print{{Hash: 42, Origin: 0}}, Context: []int{0}}
	b, err := json.Marshal(old)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(fs.path("x")+legacyExt, b, 0o600))
	require.NoError(t, fs.Update(ctx, "x", func(s *Session) error {
		require.Equal(t, 4, s.Seq)
		require.Equal(t, old.Prints, s.Prints)
		require.Equal(t, []string{"secret"}, s.Origins[0].Labels)
		s.Seq++
		return nil
	}))
	_, err = os.Stat(fs.path("x") + legacyExt)
	require.True(t, os.IsNotExist(err), "the legacy file is replaced")
	require.NoError(t, fs.Update(ctx, "x", func(s *Session) error {
		require.Equal(t, 5, s.Seq)
		return nil
	}))
}

// TestSweepIsRare: an update sweeps the directory only when the marker
// says the last sweep is an hour ago.
func TestSweepIsRare(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "s")
	fs, err := NewFileStore(dir)
	require.NoError(t, err)
	require.NoError(t, fs.Update(ctx, "old", func(*Session) error { return nil }))
	stale := time.Now().Add(-48 * time.Hour)
	for _, suf := range []string{journalExt, ".lock"} {
		require.NoError(t, os.Chtimes(fs.path("old")+suf, stale, stale))
	}
	exists := func() bool {
		_, err := os.Stat(fs.path("old") + journalExt)
		return err == nil
	}
	marker := filepath.Join(dir, sweepMarker)
	require.NoError(t, os.Chtimes(marker, time.Now().Add(-time.Minute), time.Now().Add(-time.Minute)))
	fresh, err := NewFileStore(dir)
	require.NoError(t, err)
	require.NoError(t, fresh.Update(ctx, "new", func(*Session) error { return nil }))
	require.True(t, exists(), "swept although the last sweep was a minute ago")

	require.NoError(t, os.Chtimes(marker, time.Now().Add(-2*time.Hour), time.Now().Add(-2*time.Hour)))
	fresh, err = NewFileStore(dir)
	require.NoError(t, err)
	require.NoError(t, fresh.Update(ctx, "new", func(*Session) error { return nil }))
	require.False(t, exists(), "not swept although the last sweep was two hours ago")
	_, err = os.Stat(fs.path("old") + ".lock")
	require.True(t, os.IsNotExist(err))
	st, err := os.Stat(marker)
	require.NoError(t, err)
	require.Less(t, time.Since(st.ModTime()), time.Hour, "the sweep is marked")
	require.Equal(t, os.FileMode(0o600), st.Mode().Perm())
}

// TestJournalCap: a journal over MaxBytes is an error, not a session.
func TestJournalCap(t *testing.T) {
	ctx := context.Background()
	fs, err := NewFileStore(filepath.Join(t.TempDir(), "s"))
	require.NoError(t, err)
	require.NoError(t, fs.Update(ctx, "x", func(s *Session) error {
		s.Prints = make([]Print, 100)
		return nil
	}))
	fs.MaxBytes = 200
	err = fs.Update(ctx, "x", func(*Session) error { return nil })
	require.ErrorContains(t, err, "cap")
}

// FuzzJournal: the decoder never panics on any file, and what it accepts
// is a session that encodes and decodes to itself.
func FuzzJournal(f *testing.F) {
	lim := Limits{MaxPrints: 50, MaxCalls: 6, MaxOrigins: 4}.orDefault()
	r := rand.New(rand.NewSource(1))
	s := &Session{ID: "fuzz"}
	data := appendRecord([]byte(journalMagic), nil, s)
	f.Add(data)
	for step := 0; step < 40; step++ {
		before := cloneSession(s)
		_, m := randomMutation(r, lim, step)
		m(s)
		data = appendRecord(data, before, s)
		if step%8 == 0 {
			f.Add(append([]byte(nil), data...))
		}
	}
	f.Add([]byte(journalMagic))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, _, err := decodeJournal(data)
		if err != nil {
			return
		}
		again, _, err := decodeJournal(appendRecord([]byte(journalMagic), nil, s))
		require.NoError(t, err)
		require.Equal(t, sessionJSON(t, s), sessionJSON(t, again))
	})
}

// TestKeptSessionsMatchMemoryStore: a KeepDecoded store (the decision
// server's) shares a directory with plain stores (hook processes that
// found no server), updates alternating at random between them, and some
// of its updates fail after changing the session. After every update the
// session must be what a memory store holds: a kept session another
// store wrote past, or that a failed update changed, must be replayed
// from the journal, never reused.
func TestKeptSessionsMatchMemoryStore(t *testing.T) {
	ctx := context.Background()
	lim := Limits{MaxPrints: 400, MaxCalls: 30, MaxOrigins: 12}.orDefault()
	seeds := 30
	if testing.Short() {
		seeds = 6
	}
	errFailed := errors.New("failed")
	for seed := 0; seed < seeds; seed++ {
		r := rand.New(rand.NewSource(int64(seed)))
		dir := filepath.Join(t.TempDir(), "s")
		clock := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
		now := func() time.Time { return clock }
		open := func(keep bool) *FileStore {
			fs, err := NewFileStore(dir)
			require.NoError(t, err)
			fs.now, fs.KeepDecoded = now, keep
			return fs
		}
		kept, plain, ms := open(true), open(false), NewMemoryStore()
		ms.now = now
		reused := 0
		var trail []string
		for step := 0; step < 400; step++ {
			clock = clock.Add(time.Duration(r.Intn(5000)) * time.Millisecond)
			// Each store gets its own copy of the mutation: a kept
			// session lives on, and must not share a slice the memory
			// store's session is later changed through.
			sub := r.Int63()
			name, m := randomMutation(rand.New(rand.NewSource(sub)), lim, step)
			_, mMem := randomMutation(rand.New(rand.NewSource(sub)), lim, step)
			store := kept
			if r.Intn(3) == 0 {
				store = plain
			}
			who := "kept"
			if store == plain {
				who = "plain"
			}
			trail = append(trail, who+" "+name)
			if store == kept && r.Intn(8) == 0 {
				// Changed, then failed: nothing of it may be kept.
				trail[len(trail)-1] += " (failed)"
				require.ErrorIs(t, kept.Update(ctx, "x", func(s *Session) error { m(s); return errFailed }), errFailed)
				continue
			}
			var want string
			require.NoError(t, ms.Update(ctx, "x", func(s *Session) error {
				mMem(s)
				want = sessionJSON(t, s)
				return nil
			}))
			base := store.path("x")
			if store == kept {
				if f, err := os.Open(base + journalExt); err == nil {
					if _, ok := kept.recall(base, f); ok {
						reused++
					}
					f.Close()
				}
			}
			require.NoError(t, store.Update(ctx, "x", func(s *Session) error {
				m(s)
				require.Equal(t, want, sessionJSON(t, s), "seed %d step %d after %q", seed, step, trail[max(0, len(trail)-6):])
				return nil
			}))
		}
		// The kept session was used, or the test proves nothing.
		require.Greater(t, reused, 50, "seed %d: kept sessions reused", seed)
	}
}
