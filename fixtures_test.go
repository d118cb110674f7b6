package guardrun_test

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/guardrun/guardrun"
	"github.com/guardrun/guardrun/conformance"
)

// update rewrites the golden files from what the implementation produces.
// error-contains.md is never rewritten: it holds only the parts of a message
// a human decided are stable.
var update = flag.Bool("update", false, "rewrite expected.md, expected-stderr.md and error.md from actual output")

const (
	fixturesRoot = "fixtures"
	// fixtureCommandTimeout is short so that the timeout fixture finishes
	// quickly; no other fixture runs a command anywhere near this long.
	fixtureCommandTimeout = 2 * time.Second
	// fixtureRunDeadline stops a run that hangs (an evaluator loop, a stuck
	// command that ignores the per-command timeout) from blocking the suite.
	fixtureRunDeadline = 30 * time.Second
)

// Fixture files. A case is a directory holding example.md (markdown mode) or
// example.mld (strict mode); everything else in the directory except the
// files that define the test is copied next to the script so it can be
// imported or read (conformance.CopyCase).
const (
	expectedFile       = "expected.md"
	expectedStderrFile = "expected-stderr.md"
	errorFile          = "error.md"
	errorContainsFile  = conformance.ErrorContainsFile
)

var scriptNames = []string{"example.md", "example.mld"}

// fixtureCase is one directory under fixtures/.
type fixtureCase struct {
	name   string // area/case, with forward slashes
	dir    string // source directory (golden files are updated here)
	script string // base name of the script
}

// TestFixtures runs every golden case under fixtures/: output cases compare
// the normalised document (and stderr, when expected-stderr.md exists);
// error cases compare the first line of the error and require a hint.
func TestFixtures(t *testing.T) {
	cases := findFixtureCases(t, fixturesRoot)
	require.NotEmpty(t, cases, "no fixtures found under %s", fixturesRoot)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			runFixture(t, c)
		})
	}
}

// readmeExample is one mld-example block and the output block after it.
type readmeExample struct {
	line   int    // line of the opening fence
	script string // example.mld or example.md, selecting the mode
	source string
	output string
}

// fencedBlock is one ``` block of a markdown file.
type fencedBlock struct {
	line int
	info []string
	body string
}

// readmeExamples pairs each mld-example block with the block that follows it
// and reports, as messages, examples that have no output block.
func readmeExamples(md string) ([]readmeExample, []string) {
	return docExamples("README.md", md)
}

// docExamples is readmeExamples for the page named name (used in messages).
func docExamples(name, md string) ([]readmeExample, []string) {
	blocks := fencedBlocks(md)
	var examples []readmeExample
	var problems []string
	for i, b := range blocks {
		if len(b.info) == 0 || b.info[0] != "mld-example" {
			continue
		}
		if i+1 >= len(blocks) || len(blocks[i+1].info) == 0 || blocks[i+1].info[0] != "output" {
			problems = append(problems, fmt.Sprintf("%s:%d: mld-example block is not followed by an output block", name, b.line))
			continue
		}
		script := "example.mld"
		if len(b.info) > 1 && (b.info[1] == "md" || b.info[1] == "markdown") {
			script = "example.md"
		}
		examples = append(examples, readmeExample{line: b.line, script: script, source: b.body, output: blocks[i+1].body})
	}
	return examples, problems
}

// fencedBlocks splits md into its backtick-fenced blocks. A fence closes on a
// line of at least as many backticks as opened it, as in CommonMark.
func fencedBlocks(md string) []fencedBlock {
	var blocks []fencedBlock
	var cur *fencedBlock
	var body strings.Builder
	fence := 0
	for n, line := range strings.Split(strings.ReplaceAll(md, "\r\n", "\n"), "\n") {
		trimmed := strings.TrimLeft(line, " ")
		ticks := len(trimmed) - len(strings.TrimLeft(trimmed, "`"))
		if cur == nil {
			if ticks >= 3 {
				cur = &fencedBlock{line: n + 1, info: strings.Fields(trimmed[ticks:])}
				fence = ticks
				body.Reset()
			}
			continue
		}
		if ticks >= fence && strings.TrimSpace(trimmed[ticks:]) == "" {
			cur.body = body.String()
			blocks = append(blocks, *cur)
			cur = nil
			continue
		}
		body.WriteString(line)
		body.WriteByte('\n')
	}
	return blocks
}

// findFixtureCases walks root and returns every case directory, sorted. Like
// mlld's harness it does not descend into a case: subdirectories of a case
// are its input files.
func findFixtureCases(t *testing.T, root string) []fixtureCase {
	t.Helper()
	var cases []fixtureCase
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		script := caseScript(path)
		if script == "" {
			return nil
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		cases = append(cases, fixtureCase{name: filepath.ToSlash(rel), dir: path, script: script})
		return filepath.SkipDir
	})
	require.NoError(t, err)
	sort.Slice(cases, func(i, j int) bool { return cases[i].name < cases[j].name })
	return cases
}

// caseScript returns the script file name in dir, or "" if dir is not a case.
func caseScript(dir string) string {
	for _, name := range scriptNames {
		if fileExists(filepath.Join(dir, name)) {
			return name
		}
	}
	return ""
}

func runFixture(t *testing.T, c fixtureCase) {
	// The run directory gets what mlld's harness would give it: the case
	// without its definition files. The script is compiled from the source
	// tree but named as if it lived in the run directory, so positions are
	// relative to where its imports and outputs resolve.
	work := t.TempDir()
	require.NoError(t, conformance.CopyCase(c.dir, work))
	src, err := os.ReadFile(filepath.Join(c.dir, c.script))
	require.NoError(t, err)
	res, err := runScript(t, filepath.Join(work, c.script), src, work)

	errorPath := filepath.Join(c.dir, errorFile)
	containsPath := filepath.Join(c.dir, errorContainsFile)
	if fileExists(errorPath) || fileExists(containsPath) {
		checkErrorCase(t, c, work, res, err)
		return
	}
	checkOutputCase(t, c, res, err)
}

// runScript compiles and runs one script the way an embedder would. A panic
// escaping the facade is turned into a test failure rather than killing the
// whole suite, so one bad case cannot hide the results of the others. A
// recovered panic fails the test too, whatever the case expects: an error
// case must not pass because guardrun crashed.
func runScript(t *testing.T, name string, src []byte, dir string) (res *guardrun.Result, err error) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			t.Fatalf("panic escaped the facade: %v", r)
		}
	}()
	defer failOnInternal(t, &err)
	prg, err := guardrun.Compile(name, src)
	if err != nil {
		return &guardrun.Result{}, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), fixtureRunDeadline)
	defer cancel()
	res, err = prg.Run(ctx, guardrun.WithDir(dir), guardrun.WithCommandTimeout(fixtureCommandTimeout))
	if res == nil {
		res = &guardrun.Result{}
	}
	return res, err
}

// fataler is the part of testing.T that failOnInternal uses, so a test can
// check that it really fails.
type fataler interface {
	Helper()
	Fatalf(format string, args ...any)
}

// failOnInternal fails the test when *err is a recovered panic, showing the
// stack the error keeps behind Unwrap.
func failOnInternal(t fataler, err *error) {
	t.Helper()
	var gerr *guardrun.Error
	if errors.As(*err, &gerr) && gerr.Internal() {
		t.Fatalf("the implementation panicked:\n%s\n%v", gerr.Render(), gerr.Unwrap())
	}
}

func checkOutputCase(t *testing.T, c fixtureCase, res *guardrun.Result, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("unexpected error:\n%s", renderError(err))
	}
	gotDoc := normalizeDocument(res.Document)
	gotStderr := normalizeStream(res.Stderr)
	if *update {
		writeGolden(t, filepath.Join(c.dir, expectedFile), gotDoc)
		if fileExists(filepath.Join(c.dir, expectedStderrFile)) {
			writeGolden(t, filepath.Join(c.dir, expectedStderrFile), gotStderr)
		}
		return
	}
	want := normalizeDocument(readFile(t, filepath.Join(c.dir, expectedFile)))
	if diff := cmp.Diff(want, gotDoc); diff != "" {
		t.Errorf("document mismatch (-want +got):\n%s", diff)
	}
	stderrPath := filepath.Join(c.dir, expectedStderrFile)
	if fileExists(stderrPath) {
		wantStderr := normalizeStream(readFile(t, stderrPath))
		if diff := cmp.Diff(wantStderr, gotStderr); diff != "" {
			t.Errorf("stderr mismatch (-want +got):\n%s", diff)
		}
	}
}

// checkErrorCase requires the run to fail with a positioned error that carries
// a hint. error.md must equal the first line of the error; every non-empty
// line of error-contains.md must occur in that first line. When expected.md
// also exists, the partial document must contain it (mlld's rule).
func checkErrorCase(t *testing.T, c fixtureCase, work string, res *guardrun.Result, err error) {
	t.Helper()
	require.Error(t, err, "expected the script to fail; document was:\n%s", res.Document)
	var gerr *guardrun.Error
	require.True(t, errors.As(err, &gerr), "error is %T, not *guardrun.Error: %v", err, err)
	require.False(t, gerr.Internal(), "the implementation panicked:\n%s", renderError(err))
	require.NotEmpty(t, strings.TrimSpace(gerr.Hint), "error has no hint:\n%s", renderError(err))

	got := conformance.FirstLine(conformance.RelativeTo(work, err.Error()))
	// Logged so that `go test -v` shows what a loose error-contains.md accepted.
	t.Logf("error: %s (hint: %s)", got, gerr.Hint)
	errorPath := filepath.Join(c.dir, errorFile)
	if fileExists(errorPath) {
		if *update {
			writeGolden(t, errorPath, got)
		} else {
			want := conformance.FirstLine(readFile(t, errorPath))
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("error mismatch (-want +got):\n%s\nfull error:\n%s", diff, renderError(err))
			}
		}
	}
	containsPath := filepath.Join(c.dir, errorContainsFile)
	if fileExists(containsPath) {
		parts := conformance.ErrorContainsParts(readFile(t, containsPath))
		if cerr := conformance.CheckErrorContains(parts, c.script, got); cerr != nil {
			t.Errorf("%s: %v\nfull error:\n%s", containsPath, cerr, renderError(err))
		}
	}
	expectedPath := filepath.Join(c.dir, expectedFile)
	if fileExists(expectedPath) && !*update {
		want := normalizeDocument(readFile(t, expectedPath))
		gotDoc := normalizeDocument(res.Document)
		if !strings.Contains(gotDoc, want) {
			t.Errorf("partial document does not contain expected.md\nwant (substring):\n%s\ngot:\n%s", want, gotDoc)
		}
	}
}

var newlineRuns = regexp.MustCompile(`\n{3,}`)

// normalizeDocument applies mlld's fixture comparison: CRLF to LF, runs of
// three or more newlines collapsed to two, surrounding whitespace trimmed.
func normalizeDocument(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = newlineRuns.ReplaceAllString(s, "\n\n")
	return strings.TrimSpace(s)
}

// normalizeStream is the stderr comparison: CRLF to LF and trimmed, nothing
// collapsed (blank lines written by the script are significant).
func normalizeStream(s string) string {
	return strings.TrimSpace(strings.ReplaceAll(s, "\r\n", "\n"))
}

func renderError(err error) string {
	var gerr *guardrun.Error
	if errors.As(err, &gerr) {
		return gerr.Render()
	}
	return err.Error()
}

func writeGolden(t *testing.T, path, content string) {
	t.Helper()
	if content != "" {
		content += "\n"
	}
	require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return string(b)
}

func fileExists(path string) bool {
	info, err := os.Stat(path)
	return err == nil && !info.IsDir()
}

// TestReadmeExamplesPairing pins how TestDocs reads a page's examples: blocks pair in order, the info string selects the
// mode, and an example without an output block is reported, not skipped.
func TestReadmeExamplesPairing(t *testing.T) {
	md := strings.Join([]string{
		"# Tour",
		"```mld-example",
		`show "a"`,
		"```",
		"",
		"```output",
		"a",
		"```",
		"````mld-example md",
		"/show `b`",
		"```",
		"````",
		"```output",
		"b",
		"```",
		"```mld-example",
		`show "orphan"`,
		"```",
		"```sh",
		"ls",
		"```",
	}, "\n")
	examples, problems := readmeExamples(md)
	require.Len(t, examples, 2)
	require.Equal(t, readmeExample{line: 2, script: "example.mld", source: "show \"a\"\n", output: "a\n"}, examples[0])
	require.Equal(t, "example.md", examples[1].script)
	require.Equal(t, "/show `b`\n```\n", examples[1].source, "a longer fence must not close on a shorter one")
	require.Equal(t, []string{"README.md:16: mld-example block is not followed by an output block"}, problems)
}

type fatalRecorder struct{ msgs []string }

func (r *fatalRecorder) Helper() {}
func (r *fatalRecorder) Fatalf(format string, args ...any) {
	r.msgs = append(r.msgs, fmt.Sprintf(format, args...))
}

// panicWriter stands in for a guardrun bug: it panics inside the evaluator.
type panicWriter struct{}

func (panicWriter) Write([]byte) (int, error) { panic("writer kaboom") }

// TestFailOnInternal pins that the fixture harness fails on a recovered
// panic, wherever it was recovered, and only on one: a crash must never
// count as a case's expected error.
func TestFailOnInternal(t *testing.T) {
	prg, err := guardrun.Compile("ok.mld", []byte("log \"x\"\nshow \"1\"\n"))
	require.NoError(t, err)
	_, panicked := prg.Run(context.Background(), guardrun.WithStderr(panicWriter{}))
	var gerr *guardrun.Error
	require.ErrorAs(t, panicked, &gerr)
	require.True(t, gerr.Internal(), "a panic in the evaluator is internal: %v", gerr)
	require.Equal(t, guardrun.InternalErrorName, gerr.Name)

	_, scriptErr := guardrun.Compile("bad.mld", []byte("this is prose\n"))
	require.Error(t, scriptErr)
	var none error
	var rec fatalRecorder
	failOnInternal(&rec, &scriptErr)
	failOnInternal(&rec, &none)
	require.Empty(t, rec.msgs)
	failOnInternal(&rec, &panicked)
	require.Len(t, rec.msgs, 1)
	require.Contains(t, rec.msgs[0], "writer kaboom")
}
