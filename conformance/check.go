package conformance

import (
	"fmt"
	"sort"
	"strings"

	"github.com/guardrun/guardrun"
)

// Outcome is what running one script produced.
type Outcome struct {
	Document string
	Stdout   string
	Stderr   string
	// Err is the run's error; nil when it completed.
	Err *guardrun.Error
}

// Verdict is the pass rule's answer for one script.
type Verdict struct {
	Pass bool
	// Reason is one line saying why the script failed.
	Reason string
	// Diff details the failure (a line diff, the full error), for -v.
	Diff string
}

func fail(reason, diff string) Verdict { return Verdict{Reason: reason, Diff: diff} }

// Check applies mlld's pass rule to one script's outcome. See the corpus
// README: output cases compare trimmed documents exactly; error cases need
// any error, and check text only when a non-empty expected.md accompanies
// error.md; stderr and expected-error.json are checked when present. A
// recovered panic (Error.Internal) fails every case.
func Check(exp Expectation, out Outcome) Verdict { return checkIn(exp, out, "", "") }

// checkIn is Check for a script that ran as dir/script: error-contains.md
// parts are matched against the error with dir stripped from its paths.
func checkIn(exp Expectation, out Outcome, dir, script string) Verdict {
	if out.Err.Internal() {
		// A recovered panic is a guardrun bug: it must not pass an error
		// case that accepts any error.
		return fail("guardrun panicked: "+oneLine(out.Err.Message), out.Err.Render())
	}
	doc := collapseNewlines(out.Document)
	if !exp.IsErrorCase() {
		if out.Err != nil {
			return fail(describeError(out.Err), out.Err.Render())
		}
		if exp.ErrorShape != nil {
			return fail("expected-error.json present but the script is an output case", "")
		}
		if exp.Document != nil {
			want, got := jsTrim(*exp.Document), jsTrim(doc)
			if want != got {
				return fail("document mismatch: "+firstDifference(want, got), lineDiff(want, got))
			}
		}
		return checkStderr(exp, out)
	}

	if out.Err == nil {
		return fail("expected an error, but the run completed", "document:\n"+doc)
	}
	if exp.ErrorContains != nil {
		got := FirstLine(RelativeTo(dir, out.Err.Error()))
		if err := CheckErrorContains(exp.ErrorContains, script, got); err != nil {
			return fail(err.Error(), "got:\n"+out.Err.Render())
		}
	}
	if exp.Document != nil && jsTrim(*exp.Document) != "" {
		want, got := jsTrim(*exp.Document), jsTrim(doc)
		if !strings.Contains(got, want) {
			return fail("document does not contain expected.md", lineDiff(want, got))
		}
		wantErr := jsTrim(exp.Error)
		if !strings.Contains(out.Err.Message, wantErr) && !strings.Contains(out.Err.Error(), wantErr) {
			return fail("error message does not contain error.md: got "+quoteLine(out.Err.Message),
				"want (contained):\n"+wantErr+"\ngot:\n"+out.Err.Render())
		}
	}
	if v := checkStderr(exp, out); !v.Pass {
		return v
	}
	return checkErrorShape(exp.ErrorShape, out.Err)
}

// describeError is the one-line failure reason for an unexpected error; it
// leaves out the temporary directory the script ran in.
func describeError(e *guardrun.Error) string {
	at := ""
	if e.Pos.Line > 0 {
		at = fmt.Sprintf(" at %d:%d", e.Pos.Line, e.Pos.Col)
	}
	return fmt.Sprintf("unexpected %s%s: %s", e.Name, at, oneLine(e.Message))
}

func checkStderr(exp Expectation, out Outcome) Verdict {
	if exp.Stderr == nil {
		return Verdict{Pass: true}
	}
	want, got := normalizeStream(*exp.Stderr), normalizeStream(out.Stderr)
	if want != got {
		return fail("stderr mismatch: "+firstDifference(want, got), lineDiff(want, got))
	}
	return Verdict{Pass: true}
}

// checkErrorShape compares each key of expected-error.json with the matching
// error field. Absent fields compare as JSON null. For "filter" the actual
// value may also end with ":" plus the expected value.
func checkErrorShape(shape map[string]any, e *guardrun.Error) Verdict {
	if shape == nil {
		return Verdict{Pass: true}
	}
	fields := e.Fields()
	keys := make([]string, 0, len(shape))
	for k := range shape {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		want := shape[k]
		got, ok := fields[k]
		if k == "message" {
			ok = false // mlld's error shape has no message key
		}
		switch w := want.(type) {
		case nil:
			if ok {
				return fail(fmt.Sprintf("error %s: want null, got %q", k, got), "")
			}
		case string:
			if !ok {
				return fail(fmt.Sprintf("error %s: want %q, got nothing", k, w), errorFields(e))
			}
			if got == w || (k == "filter" && strings.HasSuffix(got, ":"+w)) {
				continue
			}
			return fail(fmt.Sprintf("error %s: want %q, got %q", k, w, got), errorFields(e))
		default:
			// Our fields are strings, so a non-string expectation never matches.
			return fail(fmt.Sprintf("error %s: want %v, got %q", k, w, got), errorFields(e))
		}
	}
	return Verdict{Pass: true}
}

func errorFields(e *guardrun.Error) string {
	f := e.Fields()
	keys := make([]string, 0, len(f))
	for k := range f {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteString("actual error fields:\n")
	for _, k := range keys {
		fmt.Fprintf(&b, "  %s: %q\n", k, f[k])
	}
	return b.String()
}

// firstDifference names the first line where want and got differ.
func firstDifference(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(wl) || i < len(gl); i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		switch {
		case i >= len(gl):
			return fmt.Sprintf("line %d: want %s, got end of output", i+1, quoteLine(w))
		case i >= len(wl):
			return fmt.Sprintf("line %d: want end of output, got %s", i+1, quoteLine(g))
		case w != g:
			return fmt.Sprintf("line %d: want %s, got %s", i+1, quoteLine(w), quoteLine(g))
		}
	}
	return "texts differ"
}

// lineDiff is a line-oriented diff: " " for common lines, "-" for lines only
// in want and "+" for lines only in got. It is a plain longest-common-
// subsequence diff; case documents are small, and beyond maxDiffLines lines
// on a side only the first difference is reported.
func lineDiff(want, got string) string {
	a, b := strings.Split(want, "\n"), strings.Split(got, "\n")
	if len(a) > maxDiffLines || len(b) > maxDiffLines {
		return "(documents too long to diff) " + firstDifference(want, got) + "\n"
	}
	// lcs[i][j] is the length of the longest common subsequence of a[i:]
	// and b[j:].
	lcs := make([][]int, len(a)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var out strings.Builder
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case i < len(a) && j < len(b) && a[i] == b[j]:
			out.WriteString("  " + a[i] + "\n")
			i++
			j++
		case i < len(a) && (j == len(b) || lcs[i+1][j] >= lcs[i][j+1]):
			out.WriteString("- " + a[i] + "\n")
			i++
		default:
			out.WriteString("+ " + b[j] + "\n")
			j++
		}
	}
	return out.String()
}

// maxDiffLines bounds the quadratic diff.
const maxDiffLines = 2000

const maxQuote = 80

func quoteLine(s string) string {
	if r := []rune(s); len(r) > maxQuote {
		s = string(r[:maxQuote]) + "…"
	}
	return fmt.Sprintf("%q", s)
}

func oneLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i] + " …"
	}
	return s
}
