package conformance

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/guardrun/guardrun"
)

// writeTree creates files (path → content) under root.
func writeTree(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for p, c := range files {
		full := filepath.Join(root, filepath.FromSlash(p))
		require.NoError(t, os.MkdirAll(filepath.Dir(full), 0o755))
		require.NoError(t, os.WriteFile(full, []byte(c), 0o644))
	}
}

// echoRun is a fake interpreter: the document is the script text after a
// "doc:" prefix; a script starting with "fail:" errors with the rest as
// message; "stderr:" lines go to stderr.
func echoRun(_ context.Context, s Script) Outcome {
	src := string(s.Source)
	var out Outcome
	for _, line := range strings.Split(src, "\n") {
		switch {
		case strings.HasPrefix(line, "doc:"):
			out.Document += strings.TrimPrefix(line, "doc:") + "\n"
		case strings.HasPrefix(line, "stderr:"):
			out.Stderr += strings.TrimPrefix(line, "stderr:") + "\n"
		case strings.HasPrefix(line, "fail:"):
			out.Err = &guardrun.Error{Name: "GuardError", Message: strings.TrimPrefix(line, "fail:"), Reason: "r"}
		}
	}
	return out
}

func TestReadManifest(t *testing.T) {
	in := "path\ttags\tkind\tset\tscripts\terror_text\tstderr_checked\terror_json_checked\n" +
		"a/b\tcore,js\toutput\tpublic\texample.md\t-\tno\tno\r\n" +
		"\n" +
		"c\tcore\terror\tpublic\texample-x.md,example.md\tfull\tyes\tyes\n"
	cases, err := ReadManifest(strings.NewReader(in))
	require.NoError(t, err)
	require.Equal(t, []Case{
		{Path: "a/b", Tags: []string{"core", "js"}, Kind: "output", Scripts: []string{"example.md"}, ErrorText: "-"},
		{Path: "c", Tags: []string{"core"}, Kind: "error", Scripts: []string{"example-x.md", "example.md"}, ErrorText: "full"},
	}, cases)

	_, err = ReadManifest(strings.NewReader("path\tkind\n"))
	require.ErrorContains(t, err, "tags")
	_, err = ReadManifest(strings.NewReader(""))
	require.Error(t, err)
}

func TestDiscover(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		"x/one/example.md":             "",
		"x/one/sub/example.md":         "", // inside a case: input, not a case
		"x/two/example-a.mld":          "",
		"x/two/example.mld":            "",
		"x/skipped/example.md":         "",
		"x/skipped/skip-live.md":       "",
		"files/example.md":             "",
		"_hidden/c/example.md":         "",
		".dot/example.md":              "",
		"y/files/example.md":           "", // only the top-level files dir is a helper
		"z/notacase/readme.md":         "",
		"z/notacase/examples/other.md": "",
	})
	cases, err := Discover(root)
	require.NoError(t, err)
	var paths []string
	for _, c := range cases {
		paths = append(paths, c.Path)
	}
	require.Equal(t, []string{"x/one", "x/two", "y/files"}, paths)
	require.Equal(t, []string{"example-a.mld", "example.mld"}, cases[1].Scripts)
}

func TestLoadPrefersManifestNextToCases(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		"manifest.tsv":           "path\ttags\tkind\tscripts\nonly\tcore\toutput\texample.md\n",
		"cases/only/example.md":  "",
		"cases/other/example.md": "",
	})
	cases, err := Load(filepath.Join(root, "cases"), "")
	require.NoError(t, err)
	require.Len(t, cases, 1)
	require.NoError(t, os.Remove(filepath.Join(root, "manifest.tsv")))
	cases, err = Load(filepath.Join(root, "cases"), "")
	require.NoError(t, err)
	require.Len(t, cases, 2)
	require.Len(t, Filter(cases, "oth"), 1)
}

func TestRunAppliesPassRuleAndReportsInOrder(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		"ok/example.md":              "doc:hello",
		"ok/expected.md":             "hello\n",
		"bad/example.md":             "doc:hello",
		"bad/expected.md":            "goodbye",
		"err/example.md":             "fail:boom",
		"err/error.md":               "whatever",
		"noerr/example.md":           "doc:fine",
		"noerr/error.md":             "must fail",
		"var/example.md":             "doc:a",
		"var/expected.md":            "a",
		"var/example-two.md":         "doc:b",
		"var/expected-two.md":        "b",
		"varbad/example.md":          "doc:a",
		"varbad/expected.md":         "a",
		"varbad/example-two.md":      "doc:b",
		"varbad/error-two.md":        "must fail",
		"shape/example.md":           "fail:denied",
		"shape/error.md":             "x",
		"shape/expected-error.json":  `{"name":"GuardError","reason":"r"}`,
		"shape2/example.md":          "fail:denied",
		"shape2/error.md":            "x",
		"shape2/expected-error.json": `{"name":"TypeError"}`,
		"warn/example.md":            "doc:x\nstderr:[Guard Warning] w",
		"warn/expected.md":           "x",
		"warn/expected-stderr.md":    "[Guard Warning] w\r\n",
	})
	cases := []Case{
		{Path: "ok", Tags: []string{"core"}},
		{Path: "bad", Tags: []string{"core", "js"}},
		{Path: "err", Tags: []string{"core"}},
		{Path: "noerr", Tags: []string{"core"}},
		{Path: "var", Tags: []string{"core"}, Scripts: []string{"example-two.md", "example.md"}},
		{Path: "varbad", Tags: []string{"core"}},
		{Path: "shape", Tags: []string{"core", "guard"}},
		{Path: "shape2", Tags: []string{"core", "guard"}},
		{Path: "warn", Tags: []string{"core"}},
	}
	results := Run(context.Background(), cases, Options{CasesDir: root, Run: echoRun, Jobs: 3})
	var buf bytes.Buffer
	sum := Report(&buf, results, false)
	require.Equal(t, `PASS ok
FAIL bad: document mismatch: line 1: want "goodbye", got "hello"
PASS err
FAIL noerr: expected an error, but the run completed
PASS var
FAIL varbad: example-two.md: expected an error, but the run completed
PASS shape
FAIL shape2: error name: want "TypeError", got "GuardError"
PASS warn
core: 5/9
guard: 1/2
js: 0/1
5 passed, 4 failed
`, buf.String())
	require.InDelta(t, 55.55, sum.Percent(), 0.01)

	buf.Reset()
	Report(&buf, results[1:2], true)
	require.Contains(t, buf.String(), "-")
	require.Contains(t, buf.String(), "goodbye")
}

func TestRunUsesFreshCopyWithoutDefinitionFiles(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		"c/example.md":          "doc:x",
		"c/expected.md":         "x",
		"c/error-v.md":          "",
		"c/expected-error.json": "{}",
		"c/warning.md":          "",
		"c/config.json":         `{"mode":"strict"}`,
		"c/mod.mld":             "module",
		"c/sub/data.txt":        "data",
	})
	var seen []string
	var mode guardrun.Mode
	var dirs []string
	run := func(_ context.Context, s Script) Outcome {
		dirs = append(dirs, s.Dir)
		mode = s.Mode
		require.Equal(t, filepath.Join(s.Dir, "example.md"), s.Name)
		_ = filepath.Walk(s.Dir, func(p string, info os.FileInfo, err error) error {
			if err == nil && !info.IsDir() {
				rel, _ := filepath.Rel(s.Dir, p)
				seen = append(seen, filepath.ToSlash(rel))
			}
			return nil
		})
		// Writes stay in the copy.
		require.NoError(t, os.WriteFile(filepath.Join(s.Dir, "out.txt"), []byte("w"), 0o644))
		return echoRun(context.Background(), s)
	}
	c := []Case{{Path: "c"}}
	Run(context.Background(), c, Options{CasesDir: root, Run: run, Jobs: 1})
	Run(context.Background(), c, Options{CasesDir: root, Run: run, Jobs: 1})
	sort.Strings(seen)
	require.Equal(t, []string{"config.json", "config.json", "mod.mld", "mod.mld", "sub/data.txt", "sub/data.txt"}, seen)
	require.Equal(t, guardrun.Strict, mode)
	require.NotEqual(t, dirs[0], dirs[1])
	_, err := os.Stat(dirs[0])
	require.True(t, os.IsNotExist(err), "temporary copy removed")
	_, err = os.Stat(filepath.Join(root, "c", "out.txt"))
	require.True(t, os.IsNotExist(err), "original case untouched")
}

func TestScriptMode(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{"a/example.md": "", "b/example.mld": "", "c/example.md": "", "c/config.json": `{"mode":"markdown"}`})
	for dir, want := range map[string]guardrun.Mode{"a": guardrun.Markdown, "b": guardrun.Strict, "c": guardrun.Markdown} {
		entries, _ := os.ReadDir(filepath.Join(root, dir))
		m, err := scriptMode(filepath.Join(root, dir), entries[len(entries)-1].Name())
		require.NoError(t, err)
		require.Equal(t, want, m, dir)
	}
}

func TestRunTimeoutPanicAndStuckRun(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{"slow/example.md": "slow", "boom/example.md": "boom", "stuck/example.md": "stuck"})
	old := abandonGrace
	abandonGrace = 20 * time.Millisecond
	defer func() { abandonGrace = old }()
	release := make(chan struct{})
	defer close(release)
	var cancelled atomic.Bool
	run := func(ctx context.Context, s Script) Outcome {
		switch string(s.Source) {
		case "slow":
			<-ctx.Done()
			cancelled.Store(true)
			return Outcome{Err: &guardrun.Error{Name: "InterruptError", Message: "run timed out"}}
		case "boom":
			panic("kaboom")
		case "stuck":
			<-release // ignores ctx
		}
		return Outcome{}
	}
	results := Run(context.Background(), []Case{{Path: "slow"}, {Path: "boom"}, {Path: "stuck"}}, Options{
		CasesDir: root, Run: run, Timeout: 30 * time.Millisecond,
	})
	require.True(t, cancelled.Load())
	require.False(t, results[0].Pass)
	require.Contains(t, results[0].Reason, "InterruptError")
	require.False(t, results[1].Pass)
	require.Contains(t, results[1].Reason, "panic: kaboom")
	require.False(t, results[2].Pass)
	require.Contains(t, results[2].Reason, "timed out")
	removeLeftDir(t, results[2].Reason)
}

// leftDir extracts the directory a FAIL reason says was left behind.
var leftDir = regexp.MustCompile(`run ignored cancellation; left (\S+)$`)

func removeLeftDir(t *testing.T, reason string) string {
	t.Helper()
	m := leftDir.FindStringSubmatch(reason)
	require.NotNil(t, m, "reason names the directory left behind: %s", reason)
	t.Cleanup(func() { os.RemoveAll(m[1]) })
	return m[1]
}

// A run that ignores cancellation must not have its directory removed from
// under it: a late write would fail, or re-create the directory with no one
// left to remove it. The runner cancels it, waits the grace period, then
// moves on and says where the directory is.
func TestRunIgnoringCancellationKeepsItsDir(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{"stuck/example.md": "stuck", "stuck/input.txt": "in"})
	old := abandonGrace
	abandonGrace = 20 * time.Millisecond
	defer func() { abandonGrace = old }()
	release := make(chan struct{})
	finished := make(chan error, 1)
	var ctxErr atomic.Value
	run := func(ctx context.Context, s Script) Outcome {
		<-release // ignores ctx
		ctxErr.Store(ctx.Err() != nil)
		// The late write a stuck command or output directive would make.
		finished <- os.WriteFile(filepath.Join(s.Dir, "late.txt"), []byte("late"), 0o644)
		return Outcome{}
	}
	results := Run(context.Background(), []Case{{Path: "stuck"}}, Options{CasesDir: root, Run: run, Timeout: 30 * time.Millisecond})
	require.False(t, results[0].Pass)
	require.Contains(t, results[0].Reason, "timed out after 30ms; run ignored cancellation; left ")
	dir := removeLeftDir(t, results[0].Reason)
	_, err := os.Stat(filepath.Join(dir, "input.txt"))
	require.NoError(t, err, "the directory is still there while the run is")

	close(release)
	select {
	case err := <-finished:
		require.NoError(t, err, "the late write lands in the directory the run was given")
	case <-time.After(5 * time.Second):
		t.Fatal("the abandoned run never finished")
	}
	require.Equal(t, true, ctxErr.Load(), "the run's context was cancelled")
}

// A run that honours cancellation, even slowly (within the grace period),
// is waited for: its directory is removed only after it returned, and its
// own interrupt error decides the verdict.
func TestRunHonouringCancellationIsWaitedFor(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{"slow/example.md": "slow"})
	old := abandonGrace
	abandonGrace = 5 * time.Second
	defer func() { abandonGrace = old }()
	var dir string
	var lateWrite error
	run := func(ctx context.Context, s Script) Outcome {
		dir = s.Dir
		<-ctx.Done()
		time.Sleep(50 * time.Millisecond) // slow to wind down
		lateWrite = os.WriteFile(filepath.Join(s.Dir, "late.txt"), []byte("late"), 0o644)
		return Outcome{Err: &guardrun.Error{Name: "InterruptError", Message: "run timed out"}}
	}
	results := Run(context.Background(), []Case{{Path: "slow"}}, Options{CasesDir: root, Run: run, Timeout: 20 * time.Millisecond})
	require.False(t, results[0].Pass)
	require.Contains(t, results[0].Reason, "InterruptError")
	require.NotContains(t, results[0].Reason, "ignored cancellation")
	require.NoError(t, lateWrite, "the directory outlived the run")
	_, err := os.Stat(dir)
	require.True(t, os.IsNotExist(err), "then it was removed")
}

func TestRunCopiesSharedFilesFirst(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		"cases/c/example.md":  "doc:x",
		"cases/c/expected.md": "x",
		"cases/c/clash.txt":   "case",
		"files/helpers.mld":   "shared",
		"files/clash.txt":     "shared",
		"files/config.mlld":   "harness config",
		"files/sub/deep.txt":  "not top-level",
	})
	cases := filepath.Join(root, "cases")
	require.Equal(t, filepath.Join(root, "files"), SharedDirFor(cases))
	require.Equal(t, "", SharedDirFor(filepath.Join(cases, "c")))
	got := map[string]string{}
	run := func(_ context.Context, s Script) Outcome {
		_ = filepath.Walk(s.Dir, func(p string, info os.FileInfo, err error) error {
			if err == nil && !info.IsDir() {
				rel, _ := filepath.Rel(s.Dir, p)
				b, _ := os.ReadFile(p)
				got[filepath.ToSlash(rel)] = string(b)
			}
			return nil
		})
		return echoRun(context.Background(), s)
	}
	res := Run(context.Background(), []Case{{Path: "c"}}, Options{CasesDir: cases, Run: run, Jobs: 1, SharedDir: SharedDirFor(cases)})
	require.True(t, res[0].Pass, res[0].Reason)
	require.Equal(t, map[string]string{"helpers.mld": "shared", "clash.txt": "case"}, got)
}
