package audit

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/guardrun/guardrun/taint"
)

// Concurrency test size: writers × records each. Every record carries a
// label long enough that a torn or interleaved line could not parse.
const (
	writers          = 20
	recordsPerWriter = 200
)

// writerEnv makes the test binary act as one writer process of
// TestConcurrentProcessesNeverTear: "<root dir>|<writer id>".
const writerEnv = "GUARDRUN_AUDIT_TEST_WRITER"

func TestMain(m *testing.M) {
	if spec := os.Getenv(writerEnv); spec != "" {
		os.Exit(runWriterProcess(spec))
	}
	os.Exit(m.Run())
}

func runWriterProcess(spec string) int {
	dir, id, ok := strings.Cut(spec, "|")
	n, err := strconv.Atoi(id)
	if !ok || err != nil {
		fmt.Fprintln(os.Stderr, "bad writer spec", spec)
		return 2
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer root.Close()
	if err := writeRecords(New(root), dir, n); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// writeRecords writes recordsPerWriter records for writer id, each with a
// label naming writer and record, so the reader can check that every one
// arrived exactly once.
func writeRecords(l *Ledger, dir string, id int) error {
	for j := range recordsPerWriter {
		label := fmt.Sprintf("w%02d-r%04d-%s", id, j, strings.Repeat("x", 64))
		path := filepath.Join(dir, fmt.Sprintf("out-%02d.txt", id))
		if err := l.Record(path, taint.New(label).WithTaint(taint.SrcJS), j%2 == 1); err != nil {
			return err
		}
	}
	return nil
}

// checkLedger parses every line of the ledger and requires exactly one
// record per (writer, record) pair.
func checkLedger(t *testing.T, dir string) {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, RelPath))
	require.NoError(t, err)
	defer f.Close()
	seen := map[string]bool{}
	sc := bufio.NewScanner(f)
	lines := 0
	for sc.Scan() {
		lines++
		var r Record
		require.NoError(t, json.Unmarshal(sc.Bytes(), &r), "line %d does not parse: %q", lines, sc.Text())
		require.Len(t, r.Labels, 1, "line %d", lines)
		require.False(t, seen[r.Labels[0]], "record %s written twice", r.Labels[0])
		seen[r.Labels[0]] = true
		require.Equal(t, []string{r.Labels[0], taint.SrcJS}, r.Taint)
	}
	require.NoError(t, sc.Err())
	require.Equal(t, writers*recordsPerWriter, lines)
	require.Len(t, seen, writers*recordsPerWriter)
}

// TestConcurrentGoroutinesNeverTear: 20 goroutines, each with its own
// os.Root and Ledger (so each record is written through its own open of
// the file, as separate processes would), append at the same time.
func TestConcurrentGoroutinesNeverTear(t *testing.T) {
	dir := t.TempDir()
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	start := time.Now()
	for i := range writers {
		wg.Go(func() {
			root, err := os.OpenRoot(dir)
			if err != nil {
				errs <- err
				return
			}
			defer root.Close()
			errs <- writeRecords(New(root), dir, i)
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	t.Logf("%d goroutines × %d records in %v", writers, recordsPerWriter, time.Since(start))
	checkLedger(t, dir)

	// The index sees every writer's records: odd records are appends, so
	// each file restores the last overwrite plus the append after it.
	root, err := os.OpenRoot(dir)
	require.NoError(t, err)
	defer root.Close()
	l := New(root)
	for i := range writers {
		d, ok, err := l.Lookup(filepath.Join(dir, fmt.Sprintf("out-%02d.txt", i)))
		require.NoError(t, err)
		require.True(t, ok)
		last := recordsPerWriter - 1
		require.Equal(t, []string{
			fmt.Sprintf("w%02d-r%04d-%s", i, last-1, strings.Repeat("x", 64)),
			fmt.Sprintf("w%02d-r%04d-%s", i, last, strings.Repeat("x", 64)),
		}, d.Labels())
	}
}

// TestConcurrentProcessesNeverTear re-executes the test binary as 20
// writer processes appending at the same time.
func TestConcurrentProcessesNeverTear(t *testing.T) {
	if testing.Short() {
		t.Skip("starts 20 processes")
	}
	exe, err := os.Executable()
	require.NoError(t, err)
	dir := t.TempDir()
	cmds := make([]*exec.Cmd, writers)
	start := time.Now()
	for i := range writers {
		cmd := exec.Command(exe, "-test.run=^$")
		cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s|%d", writerEnv, dir, i))
		cmd.Stderr = os.Stderr
		require.NoError(t, cmd.Start())
		cmds[i] = cmd
	}
	for _, cmd := range cmds {
		require.NoError(t, cmd.Wait())
	}
	t.Logf("%d processes × %d records in %v", writers, recordsPerWriter, time.Since(start))
	checkLedger(t, dir)
}

func newTestLedger(t *testing.T) (*Ledger, string) {
	t.Helper()
	dir := t.TempDir()
	root, err := os.OpenRoot(dir)
	require.NoError(t, err)
	t.Cleanup(func() { root.Close() })
	return New(root), dir
}

func TestLookupUnionsAppendsAfterLastOverwrite(t *testing.T) {
	l, dir := newTestLedger(t)
	p := filepath.Join(dir, "f.txt")
	other := filepath.Join(dir, "g.txt")

	_, ok, err := l.Lookup(p)
	require.NoError(t, err)
	require.False(t, ok, "no ledger yet: no record")

	require.NoError(t, l.Record(p, taint.New("secret"), false))
	require.NoError(t, l.Record(other, taint.New("pii"), false))
	d, ok, err := l.Lookup(p)
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, []string{"secret"}, d.Labels())

	require.NoError(t, l.Record(p, taint.New("pii"), true))
	require.NoError(t, l.Record(p, taint.New("internal").WithTaint(taint.SrcJS), true))
	d, _, err = l.Lookup(p)
	require.NoError(t, err)
	require.Equal(t, []string{"secret", "pii", "internal"}, d.Labels())
	require.Equal(t, []string{"secret", "pii", "internal", taint.SrcJS}, d.Taint())

	// An overwrite with clean data resets; the path keeps a record.
	require.NoError(t, l.Record(p, taint.Descriptor{}, false))
	d, ok, err = l.Lookup(p)
	require.NoError(t, err)
	require.True(t, ok)
	require.True(t, d.IsZero(), "got %v", d)

	// A fresh ledger over the same file rebuilds the same index.
	root, err := os.OpenRoot(dir)
	require.NoError(t, err)
	defer root.Close()
	d, ok, err = New(root).Lookup(other)
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, []string{"pii"}, d.Labels())
}

func TestRecordFormat(t *testing.T) {
	l, dir := newTestLedger(t)
	l.now = func() time.Time { return time.Date(2026, 2, 5, 9, 42, 21, 123456789, time.FixedZone("x", 3600)) }
	p := filepath.Join(dir, "a<b>.txt")
	require.NoError(t, l.Record(p, taint.New("secret").WithTaint(taint.SrcCmd, "dir:/x"), false))
	require.NoError(t, l.Record(p, taint.New("pii"), true))
	b, err := os.ReadFile(filepath.Join(dir, RelPath))
	require.NoError(t, err)
	want := `{"ts":"2026-02-05T08:42:21.123Z","event":"write","path":"` + p + `","taint":["secret","src:cmd","dir:/x"],"writer":"src:cmd","labels":["secret"]}` + "\n" +
		`{"ts":"2026-02-05T08:42:21.123Z","event":"write","path":"` + p + `","taint":["pii"],"writer":null,"labels":["pii"],"mode":"append"}` + "\n"
	require.Equal(t, want, string(b))
}

// mlld's own records (no labels, no mode, writer a provenance string) and
// lines of other events or of no JSON at all are read as mlld reads them.
func TestLookupReadsMlldRecords(t *testing.T) {
	l, dir := newTestLedger(t)
	p := filepath.Join(dir, "out.txt")
	lines := []string{
		`{"ts":"2026-02-05T08:42:21.123Z","event":"label","var":"x","add":["secret"]}`,
		`not json`,
		`{"ts":"2026-02-05T08:42:21.123Z","event":"write","taint":["secret"]}`,
		`{"ts":"2026-02-05T08:42:21.123Z","event":"write","path":"` + dir + `/./out.txt","taint":["secret","src:network","dir:/p"],"writer":"guard:g"}`,
	}
	writeLedger(t, dir, strings.Join(lines, "\n")+"\n")
	d, ok, err := l.Lookup(p)
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, []string{"secret"}, d.Labels())
	require.Equal(t, []string{"secret", "src:network", "dir:/p"}, d.Taint())
	require.Equal(t, []string{"guard:g"}, d.Sources())
}

func writeLedger(t *testing.T, dir, content string) {
	t.Helper()
	path := filepath.Join(dir, RelPath)
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
}

func appendLedger(t *testing.T, dir, content string) {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(dir, RelPath), os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString(content)
	require.NoError(t, err)
	require.NoError(t, f.Close())
}

// The index follows the file as other writers extend it, waits for a line
// still being written, and rebuilds when the file is replaced.
func TestLookupFollowsTheFile(t *testing.T) {
	l, dir := newTestLedger(t)
	p := filepath.Join(dir, "f.txt")
	rec := func(label, mode string) string {
		m := ""
		if mode != "" {
			m = `,"mode":"` + mode + `"`
		}
		return `{"ts":"t","event":"write","path":"` + p + `","taint":["` + label + `"],"writer":null,"labels":["` + label + `"]` + m + `}`
	}
	labels := func() []string {
		t.Helper()
		d, _, err := l.Lookup(p)
		require.NoError(t, err)
		return d.Labels()
	}

	writeLedger(t, dir, rec("a", "")+"\n")
	require.Equal(t, []string{"a"}, labels())

	// Half a record: not applied until it is complete.
	full := rec("b", "append") + "\n"
	appendLedger(t, dir, full[:20])
	require.Equal(t, []string{"a"}, labels())
	appendLedger(t, dir, full[20:])
	require.Equal(t, []string{"a", "b"}, labels())

	// A complete record without its newline counts.
	appendLedger(t, dir, rec("c", "append"))
	require.Equal(t, []string{"a", "b", "c"}, labels())
	appendLedger(t, dir, "\n"+rec("d", "append")+"\n")
	require.Equal(t, []string{"a", "b", "c", "d"}, labels())

	// Replaced by a shorter file, then by a longer one that does not
	// continue the old content: both are read from the start.
	writeLedger(t, dir, rec("e", "")+"\n")
	require.Equal(t, []string{"e"}, labels())
	writeLedger(t, dir, rec("f", "")+"\n"+rec("g", "append")+"\n"+rec("h", "append")+"\n")
	require.Equal(t, []string{"f", "g", "h"}, labels())
}

func TestRecordFailsWhenLedgerCannotBeWritten(t *testing.T) {
	l, dir := newTestLedger(t)
	require.NoError(t, os.MkdirAll(filepath.Join(dir, ".mlld"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, ".mlld", "sec"), []byte("not a dir"), 0o644))
	err := l.Record(filepath.Join(dir, "f.txt"), taint.New("secret"), false)
	require.Error(t, err)

	// A .mlld/sec that is a file cannot hold a ledger: nothing is recorded.
	_, ok, err := l.Lookup(filepath.Join(dir, "f.txt"))
	require.NoError(t, err)
	require.False(t, ok)
}

func TestLookupFailsWhenLedgerCannotBeRead(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads files whatever their mode")
	}
	l, dir := newTestLedger(t)
	require.NoError(t, l.Record(filepath.Join(dir, "f.txt"), taint.New("secret"), false))
	require.NoError(t, os.Chmod(filepath.Join(dir, RelPath), 0o200))
	_, _, err := l.Lookup(filepath.Join(dir, "f.txt"))
	require.ErrorContains(t, err, "reading the audit ledger")
}

// A ledger path that is a directory exists but cannot be read: that is an
// error too (and works when the tests run as root).
func TestLookupFailsWhenLedgerIsADirectory(t *testing.T) {
	l, dir := newTestLedger(t)
	require.NoError(t, os.MkdirAll(filepath.Join(dir, RelPath), 0o755))
	_, _, err := l.Lookup(filepath.Join(dir, "f.txt"))
	require.ErrorContains(t, err, "reading the audit ledger")
	require.Error(t, l.Record(filepath.Join(dir, "f.txt"), taint.New("secret"), false))
}

// Records with a base-relative path are found by it whatever absolute
// path they were written under, and labelled content by its hash; a
// private ledger is owner-only.
func TestLookupKeyByRelAndHash(t *testing.T) {
	dir := t.TempDir()
	root, err := os.OpenRoot(dir)
	require.NoError(t, err)
	defer root.Close()
	l := NewPrivate(root, filepath.Join("x", "audit.jsonl"))
	require.NoError(t, l.RecordWrites(
		Write{Path: "/old/place/k.txt", Rel: "k.txt", SHA256: "abc", Desc: taint.New("secret")},
		Write{Path: "/old/place/c.txt", Rel: "c.txt", SHA256: "def", Desc: taint.Descriptor{}},
	))
	d, ok, err := l.LookupKey(Key{Path: "/new/place/k.txt", Rel: "k.txt"})
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, []string{"secret"}, d.Labels())

	d, ok, err = l.LookupKey(Key{Path: "/new/place/K.TXT", Rel: "K.TXT", SHA256: "abc"})
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, []string{"secret"}, d.Labels())

	// Clean content contributes nothing by hash.
	_, ok, err = l.LookupKey(Key{Rel: "other.txt", SHA256: "def"})
	require.NoError(t, err)
	require.False(t, ok)

	all, err := l.Labelled()
	require.NoError(t, err)
	require.Len(t, all, 1)
	require.Contains(t, all, "k.txt")

	st, err := os.Stat(filepath.Join(dir, "x", "audit.jsonl"))
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), st.Mode().Perm())
	st, err = os.Stat(filepath.Join(dir, "x"))
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o700), st.Mode().Perm())
}
