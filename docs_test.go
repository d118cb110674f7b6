package guardrun_test

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/guardrun/guardrun/policytest"
	"github.com/stretchr/testify/require"
)

// The pages (README.md and every docs/**/*.md) hold three kinds of marked
// examples, and TestDocs runs them all, so no page drifts from the code:
//
//   - a block tagged `mld-example` (strict mode; `mld-example md` for
//     markdown mode) followed by a block tagged `output`: the script is run
//     in a fresh directory and its document must equal the output block;
//   - a block tagged `guardrun-test` (agent event tests or decision tests,
//     the format of `guardrun test`): it is run as a test file beside a
//     copy of the policies of examples/agent (or of `dir=DIR`, relative to
//     the repository), and every expectation must hold;
//   - a block whose info string has `file=PATH` (e.g. ```` ```guard
//     file=examples/agent/push.guard ````): the page quotes that file, and
//     the block must equal it byte for byte. Such a block is not run
//     itself; the file's own tests are (TestAgentExamples).
//
// Other blocks are illustrations and are not run.

// docPages lists README.md and the markdown pages under docs/.
func docPages(t *testing.T) []string {
	t.Helper()
	pages := []string{"README.md"}
	err := filepath.WalkDir("docs", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(path, ".md") {
			pages = append(pages, filepath.ToSlash(path))
		}
		return nil
	})
	require.NoError(t, err)
	sort.Strings(pages)
	return pages
}

// blockAttr returns the value of key=VALUE in a block's info string.
func blockAttr(b fencedBlock, key string) string {
	for _, f := range b.info {
		if v, ok := strings.CutPrefix(f, key+"="); ok {
			return v
		}
	}
	return ""
}

func TestDocs(t *testing.T) {
	for _, page := range docPages(t) {
		src, err := os.ReadFile(page)
		require.NoError(t, err)
		md := string(src)
		examples, problems := docExamples(page, md)
		for _, p := range problems {
			t.Error(p)
		}
		for _, ex := range examples {
			t.Run(fmt.Sprintf("%s:%d", page, ex.line), func(t *testing.T) {
				t.Parallel()
				work := t.TempDir()
				res, err := runScript(t, filepath.Join(work, ex.script), []byte(ex.source), work)
				if err != nil {
					t.Fatalf("%s:%d: example failed:\n%s", page, ex.line, renderError(err))
				}
				if diff := cmp.Diff(normalizeDocument(ex.output), normalizeDocument(res.Document)); diff != "" {
					t.Errorf("%s:%d: output mismatch (-want +got):\n%s", page, ex.line, diff)
				}
			})
		}
		for _, b := range fencedBlocks(md) {
			if file := blockAttr(b, "file"); file != "" {
				t.Run(fmt.Sprintf("%s:%d", page, b.line), func(t *testing.T) {
					want, err := os.ReadFile(filepath.FromSlash(file))
					require.NoError(t, err, "%s:%d quotes %s", page, b.line, file)
					if diff := cmp.Diff(string(want), b.body); diff != "" {
						t.Errorf("%s:%d: the block differs from %s (-file +page):\n%s", page, b.line, file, diff)
					}
				})
				continue
			}
			if len(b.info) > 0 && b.info[0] == "guardrun-test" {
				t.Run(fmt.Sprintf("%s:%d", page, b.line), func(t *testing.T) {
					t.Parallel()
					dir := blockAttr(b, "dir")
					if dir == "" {
						dir = "examples/agent"
					}
					runTestBlock(t, fmt.Sprintf("%s:%d", page, b.line), filepath.FromSlash(dir), b.body)
				})
			}
		}
	}
}

// runTestBlock runs body as a `guardrun test` file in a copy of the
// policies (*.guard, *.mld that are not tests) of dir.
func runTestBlock(t *testing.T, where, dir, body string) {
	t.Helper()
	work := t.TempDir()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || strings.HasSuffix(name, ".test.mld") || !(strings.HasSuffix(name, ".guard") || strings.HasSuffix(name, ".mld")) {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, name))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(work, name), b, 0o644))
	}
	require.NoError(t, os.WriteFile(filepath.Join(work, "page.test.mld"), []byte(body), 0o644))
	rs, err := policytest.Run(context.Background(), []string{work}, policytest.Options{})
	require.NoError(t, err, where)
	require.NotEmpty(t, rs, "%s: no test in the block", where)
	for _, r := range rs {
		if !r.Pass {
			t.Errorf("%s: %s:\n%s", where, r.Name, strings.Join(r.Failures, "\n"))
		}
	}
}

// TestAgentExamples runs the tests of the policies writing-policies.md
// walks through (examples/agent/*.test.mld), as `guardrun test
// examples/agent` does, and those of the AgentDojo policy
// (examples/agentdojo).
func TestAgentExamples(t *testing.T) {
	for _, dir := range []string{"examples/agent", "examples/agentdojo"} {
		rs, err := policytest.Run(context.Background(), []string{dir}, policytest.Options{})
		require.NoError(t, err)
		require.NotEmpty(t, rs, dir)
		for _, r := range rs {
			if !r.Pass {
				t.Errorf("%s: %s:\n%s", dir, r.Name, strings.Join(r.Failures, "\n"))
			}
		}
	}
}

// TestDocLinks checks that every relative link of the pages names a file
// that exists and, when it has a #fragment into a markdown page, a
// heading of that page (GitHub's anchors), so the README's map leads
// somewhere.
func TestDocLinks(t *testing.T) {
	link := regexp.MustCompile(`\]\(([^)#\s]*)(#[^)\s]*)?\)`)
	for _, page := range docPages(t) {
		src, err := os.ReadFile(page)
		require.NoError(t, err)
		for _, m := range link.FindAllStringSubmatch(withoutCode(string(src)), -1) {
			target, frag := m[1], strings.TrimPrefix(m[2], "#")
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			path := page
			if target != "" {
				path = filepath.Join(filepath.Dir(page), filepath.FromSlash(target))
			}
			if _, err := os.Stat(path); err != nil {
				t.Errorf("%s: link %s: %v", page, m[0], err)
				continue
			}
			if frag == "" || !strings.HasSuffix(path, ".md") {
				continue
			}
			b, err := os.ReadFile(path)
			require.NoError(t, err)
			if !headingAnchors(string(b))[frag] {
				t.Errorf("%s: link %s: %s has no heading with anchor #%s", page, m[0], path, frag)
			}
		}
	}
}

// withoutCode blanks fenced blocks and inline code spans, where a
// bracket-paren is not a link.
func withoutCode(md string) string {
	return withoutFences(md, true)
}

// withoutFences blanks fenced blocks and, with spans, inline code spans.
func withoutFences(md string, spans bool) string {
	var b strings.Builder
	fence := false
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fence = !fence
			b.WriteByte('\n')
			continue
		}
		if fence {
			b.WriteByte('\n')
			continue
		}
		if spans {
			line = regexp.MustCompile("`[^`]*`").ReplaceAllString(line, "``")
		}
		b.WriteString(line)
		b.WriteByte('\n')
	}
	return b.String()
}

// headingAnchors are the anchors GitHub gives a page's headings:
// lower case, punctuation dropped, spaces to hyphens, -1, -2… for
// repeats.
func headingAnchors(md string) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	drop := regexp.MustCompile(`[^\p{L}\p{N} _-]`)
	for _, line := range strings.Split(withoutFences(md, false), "\n") {
		if !strings.HasPrefix(line, "#") {
			continue
		}
		text := strings.TrimSpace(strings.TrimLeft(line, "#"))
		a := strings.ReplaceAll(drop.ReplaceAllString(strings.ToLower(text), ""), " ", "-")
		if n := seen[a]; n > 0 {
			out[fmt.Sprintf("%s-%d", a, n)] = true
		} else {
			out[a] = true
		}
		seen[a]++
	}
	return out
}
