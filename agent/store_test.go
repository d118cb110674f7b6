package agent

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestFileStoreKeepsNoSecretText(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "s")
	fs, err := NewFileStore(dir)
	require.NoError(t, err)
	e, err := New(context.Background(), Config{Store: fs, Policies: []Policy{{Name: "p.guard", Source: []byte(
		"guard @k after @Read = when [\n  * => allow with { addLabels: [\"secret\"] }\n]\n")}}})
	require.NoError(t, err)
	defer e.Close()
	secret := "sk-live-VERYSECRET-0123456789abcdef"
	d := e.Decide(context.Background(), Event{Kind: ToolAfter, Session: "s", Tool: "Read", Input: map[string]any{"file_path": ".env"}, Output: "KEY=" + secret})
	require.Equal(t, Allow, d.Outcome)
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	require.NotEmpty(t, files)
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		require.NotContains(t, strings.ToLower(string(b)), "verysecret", "%s holds raw secret text", f)
		st, err := os.Stat(f)
		require.NoError(t, err)
		require.Equal(t, os.FileMode(0o600), st.Mode().Perm(), f)
	}
}

func TestFileStoreFailsClosed(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "s")
	fs, err := NewFileStore(dir)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(fs.path("s")+".json", []byte("{torn"), 0o600))
	err = fs.Update(context.Background(), "s", func(*Session) error { return nil })
	require.ErrorContains(t, err, "corrupt")

	open := filepath.Join(t.TempDir(), "open")
	require.NoError(t, os.MkdirAll(open, 0o755))
	require.NoError(t, os.Chmod(open, 0o755))
	_, err = NewFileStore(open)
	require.ErrorContains(t, err, "accessible to other users")

	fs.MaxBytes = 3
	require.NoError(t, os.WriteFile(fs.path("big")+".json", []byte(`{"id":"big"}`), 0o600))
	err = fs.Update(context.Background(), "big", func(*Session) error { return nil })
	require.ErrorContains(t, err, "cap")
}

func TestStoresExpireSessions(t *testing.T) {
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	now := func() time.Time { return clock }
	fs, err := NewFileStore(filepath.Join(t.TempDir(), "s"))
	require.NoError(t, err)
	fs.now, fs.TTL = now, time.Hour
	ms := NewMemoryStore()
	ms.now, ms.TTL = now, time.Hour
	for name, st := range map[string]Store{"file": fs, "memory": ms} {
		t.Run(name, func(t *testing.T) {
			clock = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
			require.NoError(t, st.Update(context.Background(), "x", func(s *Session) error { s.Seq = 7; return nil }))
			clock = clock.Add(30 * time.Minute)
			require.NoError(t, st.Update(context.Background(), "x", func(s *Session) error { require.Equal(t, 7, s.Seq); return nil }))
			clock = clock.Add(2 * time.Hour)
			require.NoError(t, st.Update(context.Background(), "x", func(s *Session) error { require.Zero(t, s.Seq, "expired"); return nil }))
		})
	}
	// Sweep removes an expired session's files.
	require.NoError(t, fs.Update(context.Background(), "old", func(*Session) error { return nil }))
	old := time.Now().Add(-48 * time.Hour)
	for _, suf := range []string{journalExt, ".lock"} {
		require.NoError(t, os.Chtimes(fs.path("old")+suf, old, old))
	}
	fs.now = time.Now
	require.NoError(t, fs.Sweep())
	for _, suf := range []string{journalExt, ".lock"} {
		_, err := os.Stat(fs.path("old") + suf)
		require.True(t, os.IsNotExist(err), suf)
	}
}

func TestSessionCaps(t *testing.T) {
	lim := Limits{MaxPrints: 10, MaxCalls: 20, MaxOrigins: 3}.orDefault()
	s := &Session{}
	for i := 0; i < 100; i++ {
		s.addCall(Call{Seq: i, Name: "Bash"}, lim)
		require.LessOrEqual(t, len(s.Calls), lim.MaxCalls)
		require.Equal(t, len(s.Calls), len(s.callsObjects()))
	}
	require.Equal(t, 99, s.Calls[len(s.Calls)-1].Seq)
	for i := 0; i < 5; i++ {
		s.addOrigin(Origin{Seq: i, Labels: []string{"l" + string(rune('a'+i))}}, lim)
	}
	require.Len(t, s.Origins, 3)
	require.Equal(t, []string{"lc", "ld", "le"}, s.Origins[2].Labels, "labels past the cap merge, never drop")
	o := s.addOrigin(Origin{Seq: 9, Labels: []string{"secret"}}, lim)
	var long strings.Builder
	for i := 0; i < 100; i++ {
		long.WriteString(time.Duration(i * 7919).String())
	}
	s.addPrints(long.String(), o, lim)
	require.LessOrEqual(t, len(s.Prints), lim.MaxPrints)
	require.Contains(t, s.Context, o, "over the fingerprint cap the labels go context-wide")
}

// A file store's clock is UTC: a local time would make every hook
// process load the zone database to save its offset.
func TestFileStoreTimesAreUTC(t *testing.T) {
	fs, err := NewFileStore(filepath.Join(t.TempDir(), "s"))
	if err != nil {
		t.Fatal(err)
	}
	// The first update sees the clock's own time, the second the one the
	// journal gave back.
	for i := 0; i < 2; i++ {
		var created time.Time
		if err := fs.Update(context.Background(), "x", func(s *Session) error {
			created = s.Created
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if created.IsZero() || created.Location() != time.UTC {
			t.Errorf("update %d: session created at %v (%v), want a UTC time", i, created, created.Location())
		}
	}
}
