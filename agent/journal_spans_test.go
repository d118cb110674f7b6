package agent

import (
	"context"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestUpdateKeepsInPlaceEdits: an update's before-image is the journal
// itself (spans), not a copy of the origins and calls, so every edit fn
// makes in place to what it was handed must still reach the journal: an
// old call's outcome and decision, an origin's labels (in the arena the
// decoder cut them from), a map entry, a trimmed slice. A fresh store
// (the next hook process) must read exactly the session fn left.
func TestUpdateKeepsInPlaceEdits(t *testing.T) {
	ctx := context.Background()
	lim := Limits{MaxCalls: 1000, MaxOrigins: 1000, MaxPrints: 1000}
	edits := []struct {
		name string
		edit func(s *Session)
	}{
		{"old call's outcome", func(s *Session) { s.Calls[3].Outcome = "error" }},
		{"old call's decision", func(s *Session) { s.Calls[10].Decision = Deny }},
		{"old call's time zone", func(s *Session) { s.Calls[11].Time = s.Calls[11].Time.In(time.FixedZone("", 3600)) }},
		{"old call's command", func(s *Session) { s.Calls[12].Command += " -v" }},
		{"origin's label in place", func(s *Session) { s.Origins[2].Labels[0] = "secret" }},
		{"origin's label added", func(s *Session) { s.Origins[4].Labels = append(s.Origins[4].Labels, "pii") }},
		{"origin's labels cut", func(s *Session) { s.Origins[5].Labels = s.Origins[5].Labels[:1] }},
		{"origin's tool", func(s *Session) { s.Origins[6].Tool = "WebFetch" }},
		{"origin's file", func(s *Session) { s.Origins[7].File = ".env" }},
		{"map entry", func(s *Session) { s.Reads["/src/main.go"] = strings.Repeat("0", 64) }},
		{"map entry deleted", func(s *Session) { delete(s.Approvals, "a"); s.Retries["r"]++ }},
		{"print overwritten", func(s *Session) { s.Prints[7].Hash ^= 1 }},
		{"print's origin", func(s *Session) { s.Prints[150].Origin = 0 }},
		{"prints cut", func(s *Session) { s.Prints = append(s.Prints[20:120], s.Prints[250:]...) }},
		{"calls trimmed at the front", func(s *Session) { s.Calls = s.Calls[5:] }},
		{"calls cut in the middle", func(s *Session) { s.Calls = append(s.Calls[:20], s.Calls[25:]...) }},
		{"origins replaced", func(s *Session) { s.Origins = append([]Origin(nil), s.Origins[1:]...) }},
		{"last call's outcome", func(s *Session) { s.Calls[len(s.Calls)-1].Outcome = "ok" }},
	}
	for _, e := range edits {
		dir := filepath.Join(t.TempDir(), "s")
		open := func() *FileStore {
			fs, err := NewFileStore(dir)
			require.NoError(t, err)
			return fs
		}
		require.NoError(t, open().Update(ctx, "x", func(s *Session) error {
			benchSession(s, 60, 300, lim)
			s.Approvals = map[string]bool{"a": true, "b": true}
			s.Retries = map[string]int{"r": 1}
			return nil
		}))
		var want string
		fs := open()
		require.NoError(t, fs.Update(ctx, "x", func(s *Session) error {
			e.edit(s)
			s.Seq++
			want = sessionJSON(t, s)
			return nil
		}), e.name)
		b, err := os.ReadFile(fs.path("x") + journalExt)
		require.NoError(t, err)
		s, sp, shape, err := decodeSpans(b, true, fs.key)
		require.NoError(t, err)
		require.Equal(t, 1, shape.deltas, "%s: appended as a delta, so the spans were the before-image", e.name)
		require.Len(t, sp.calls, len(s.Calls))
		require.Len(t, sp.origins, len(s.Origins))
		var got string
		require.NoError(t, open().Update(ctx, "x", func(s *Session) error {
			got = sessionJSON(t, s)
			return nil
		}))
		// The update's own time differs; everything else must not.
		require.Equal(t, stripUpdated(t, want), stripUpdated(t, got), e.name)
	}
}

func stripUpdated(t *testing.T, js string) string {
	i := strings.Index(js, `"updated":`)
	require.GreaterOrEqual(t, i, 0)
	j := strings.Index(js[i:], `",`)
	return js[:i] + js[i+j+2:]
}

// TestSpansMatchExactly: a call or origin matches its encoding only when
// it would encode to the same bytes: any one field changed is a change,
// and an equal string held elsewhere (not in the journal's buffer) is
// not.
func TestSpansMatchExactly(t *testing.T) {
	s := &Session{ID: "x"}
	benchSession(s, 5, 0, Limits{}.orDefault())
	s.Calls[1].Time = s.Calls[1].Time.In(time.FixedZone("", -7200))
	s.Calls[2].Time = time.Time{}
	s, sp, _, err := decodeSpans(appendRecord([]byte(journalMagic), nil, s), true, sumKey{})
	require.NoError(t, err)
	for i := range s.Calls {
		c := s.Calls[i]
		require.True(t, sp.call(i, &c), "call %d unchanged", i)
		c.Name = strings.Clone(c.Name)
		c.Command = strings.Clone(c.Command)
		require.True(t, sp.call(i, &c), "call %d: equal strings elsewhere", i)
		require.False(t, sp.call((i+1)%len(s.Calls), &c), "call %d is not call %d", i, i+1)
		for name, change := range map[string]func(c *Call){
			"seq":      func(c *Call) { c.Seq++ },
			"name":     func(c *Call) { c.Name += "x" },
			"decision": func(c *Call) { c.Decision = Deny },
			"time":     func(c *Call) { c.Time = c.Time.Add(time.Nanosecond) },
			"zone": func(c *Call) {
				if c.Time.IsZero() {
					c.Seq++ // a zero time has no zone to change
				}
				c.Time = c.Time.In(time.FixedZone("", 60))
			},
			"zero":    func(c *Call) { c.Time = time.Time{}.Add(time.Second) },
			"call id": func(c *Call) { c.CallID = "" },
			"command": func(c *Call) { c.Command = c.Command[:len(c.Command)-1] + "!" },
			"outcome": func(c *Call) { c.Outcome = "error" },
		} {
			c := s.Calls[i]
			change(&c)
			require.False(t, sp.call(i, &c), "call %d: %s changed", i, name)
		}
	}
	for i := range s.Origins {
		o := s.Origins[i]
		require.True(t, sp.origin(i, &o), "origin %d unchanged", i)
		for name, change := range map[string]func(o *Origin){
			"seq":          func(o *Origin) { o.Seq++ },
			"event":        func(o *Origin) { o.Event = ToolBefore },
			"tool":         func(o *Origin) { o.Tool = "" },
			"call id":      func(o *Origin) { o.CallID += "x" },
			"label":        func(o *Origin) { o.Labels = []string{o.Labels[0], "secret"} },
			"label added":  func(o *Origin) { o.Labels = append(o.Labels[:len(o.Labels):len(o.Labels)], "secret") },
			"labels fewer": func(o *Origin) { o.Labels = o.Labels[:1] },
		} {
			o := s.Origins[i]
			change(&o)
			require.False(t, sp.origin(i, &o), "origin %d: %s changed", i, name)
		}
	}
}

// TestPrintSpans: the fingerprints' runs follow every edit the journal
// replays (drops, keeps, appended runs), so that each fingerprint, read
// in order or not, is found where the journal holds it, and a changed
// hash or origin is a change.
func TestPrintSpans(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	s := &Session{ID: "x"}
	data := appendRecord([]byte(journalMagic), nil, s)
	for step := 0; step < 60; step++ {
		before := cloneSession(s)
		switch r.Intn(4) {
		case 0:
			if n := len(s.Prints); n > 0 {
				a, b := r.Intn(n), r.Intn(n)
				s.Prints = append([]Print(nil), s.Prints[min(a, b):max(a, b)]...)
			}
		case 1:
			if n := len(s.Prints); n > 0 {
				s.Prints[r.Intn(n)].Hash++
			}
		default:
			o := r.Intn(5)
			for range 1 + r.Intn(30) {
				s.Prints = append(s.Prints, Print{Hash: r.Uint64(), Origin: o})
			}
		}
		data = appendRecord(data, before, s)
		got, sp, _, err := decodeSpans(data, true, sumKey{})
		require.NoError(t, err)
		require.Equal(t, s.Prints, got.Prints)
		require.Equal(t, len(s.Prints), sp.nprints)
		for i := range got.Prints {
			require.True(t, sp.print(i, &got.Prints[i]), "step %d print %d", step, i)
		}
		for range 20 {
			if len(got.Prints) == 0 {
				break
			}
			i := r.Intn(len(got.Prints))
			p := got.Prints[i]
			require.True(t, sp.print(i, &p), "step %d print %d out of order", step, i)
			p.Hash ^= 1 << r.Intn(64)
			require.False(t, sp.print(i, &p), "step %d print %d hash", step, i)
			p = got.Prints[i]
			p.Origin++
			require.False(t, sp.print(i, &p), "step %d print %d origin", step, i)
		}
	}
}
