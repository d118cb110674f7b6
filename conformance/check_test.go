package conformance

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/guardrun/guardrun"
)

func ptr(s string) *string { return &s }

func TestJSTrim(t *testing.T) {
	for in, want := range map[string]string{
		"  a b \n":            "a b",
		"\ufeffhello\u3000":   "hello",
		"\u2028x\u2029":       "x",
		"\u00a0\u2007y\u200a": "y",
		"\u0085z\u0085":       "\u0085z\u0085", // NEL is not JS whitespace
		"\u200bq":             "\u200bq",       // zero-width space is not either
		"\t\v\f\r\n":          "",
	} {
		require.Equal(t, want, jsTrim(in), "jsTrim(%q)", in)
	}
}

func TestCollapseNewlines(t *testing.T) {
	require.Equal(t, "a\n\nb\n\nc\nd", collapseNewlines("a\n\n\nb\n\n\n\n\nc\nd"))
}

func TestCheckOutputCase(t *testing.T) {
	exp := Expectation{Document: ptr("\nHello\n\nWorld\n")}
	tests := []struct {
		name string
		out  Outcome
		pass bool
	}{
		{"exact after trim", Outcome{Document: "Hello\n\nWorld"}, true},
		{"3+ newlines collapse", Outcome{Document: "Hello\n\n\n\nWorld\n\n\n"}, true},
		{"bom and unicode space trimmed", Outcome{Document: "\ufeff Hello\n\nWorld\u3000"}, true},
		{"inner whitespace matters", Outcome{Document: "Hello\n\nWorld  x"}, false},
		{"crlf not normalised in document", Outcome{Document: "Hello\r\n\r\nWorld"}, false},
		{"error fails", Outcome{Document: "Hello\n\nWorld", Err: &guardrun.Error{Name: "VariableError", Message: "boom"}}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v := Check(exp, tc.out)
			require.Equal(t, tc.pass, v.Pass, v.Reason)
			if !tc.pass {
				require.NotEmpty(t, v.Reason)
				require.NotContains(t, v.Reason, "\n")
			}
		})
	}
}

func TestCheckSmokeCase(t *testing.T) {
	require.True(t, Check(Expectation{}, Outcome{Document: "anything"}).Pass)
	require.False(t, Check(Expectation{}, Outcome{Err: &guardrun.Error{Message: "x"}}).Pass)
}

func TestCheckStderr(t *testing.T) {
	exp := Expectation{Document: ptr("ok"), Stderr: ptr("[Guard Warning] no\r\n")}
	require.True(t, Check(exp, Outcome{Document: "ok", Stderr: "\n[Guard Warning] no\n"}).Pass)
	require.False(t, Check(exp, Outcome{Document: "ok", Stderr: "other"}).Pass)

	empty := Expectation{Document: ptr("ok"), Stderr: ptr("")}
	require.True(t, Check(empty, Outcome{Document: "ok", Stderr: " \n"}).Pass)
	require.False(t, Check(empty, Outcome{Document: "ok", Stderr: "log line"}).Pass)

	// Without expected-stderr.md, stderr is not looked at.
	require.True(t, Check(Expectation{Document: ptr("ok")}, Outcome{Document: "ok", Stderr: "noise"}).Pass)
}

func TestCheckErrorCase(t *testing.T) {
	boom := &guardrun.Error{Name: "GuardError", Message: "Guard blocked operation: no secrets\nGuard: @g"}

	t.Run("must fail", func(t *testing.T) {
		v := Check(Expectation{Error: "anything"}, Outcome{Document: "done"})
		require.False(t, v.Pass)
	})
	t.Run("any error passes without expected.md", func(t *testing.T) {
		require.True(t, Check(Expectation{Error: "totally different text"}, Outcome{Err: boom}).Pass)
	})
	t.Run("blank expected.md means text unchecked", func(t *testing.T) {
		require.True(t, Check(Expectation{Error: "different", Document: ptr(" \n")}, Outcome{Err: boom}).Pass)
	})
	t.Run("with expected.md document and message are contained", func(t *testing.T) {
		exp := Expectation{Error: "no secrets\n", Document: ptr("before\n")}
		require.True(t, Check(exp, Outcome{Document: "x before y", Err: boom}).Pass)
		require.False(t, Check(exp, Outcome{Document: "nothing", Err: boom}).Pass)
		exp.Error = "Guard: @other"
		require.False(t, Check(exp, Outcome{Document: "before", Err: boom}).Pass)
	})
	t.Run("stderr checked for error cases", func(t *testing.T) {
		exp := Expectation{Error: "x", Stderr: ptr("warn")}
		require.False(t, Check(exp, Outcome{Err: boom}).Pass)
		require.True(t, Check(exp, Outcome{Err: boom, Stderr: "warn\n"}).Pass)
	})
	t.Run("empty error.md is an output case", func(t *testing.T) {
		require.False(t, Expectation{Error: ""}.IsErrorCase())
	})
}

func TestCheckErrorShape(t *testing.T) {
	e := &guardrun.Error{
		Name: "GuardError", Message: "m", GuardName: "@blockCmd", Filter: "op:operation:cmd",
		Reason: "Commands blocked", Operation: "exe",
	}
	tests := []struct {
		name  string
		shape map[string]any
		pass  bool
	}{
		{"all match", map[string]any{"name": "GuardError", "guardName": "@blockCmd", "reason": "Commands blocked", "operation": "exe"}, true},
		{"filter suffix rule", map[string]any{"filter": "operation:cmd"}, true},
		{"filter exact", map[string]any{"filter": "op:operation:cmd"}, true},
		{"filter suffix needs colon", map[string]any{"filter": "ration:cmd"}, false},
		{"guardFilter exact only", map[string]any{"guardFilter": "operation:cmd"}, false},
		{"wrong name", map[string]any{"name": "TypeError"}, false},
		{"missing field", map[string]any{"decision": "deny"}, false},
		{"null matches absent", map[string]any{"retryHint": nil}, true},
		{"null does not match present", map[string]any{"reason": nil}, false},
		{"non-string never matches", map[string]any{"operation": 3.0}, false},
		{"empty shape", map[string]any{}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v := Check(Expectation{Error: "x", ErrorShape: tc.shape}, Outcome{Err: e})
			require.Equal(t, tc.pass, v.Pass, v.Reason)
		})
	}
}

func TestOutputCaseWithErrorShapeFails(t *testing.T) {
	v := Check(Expectation{Document: ptr("a"), ErrorShape: map[string]any{}}, Outcome{Document: "a"})
	require.False(t, v.Pass)
}

func TestLineDiffMarksChangedLines(t *testing.T) {
	got := lineDiff("a\nb\nc", "a\nx\nc\nd")
	require.Equal(t, "  a\n- b\n+ x\n  c\n+ d\n", got)
	require.Equal(t, "  same\n", lineDiff("same", "same"))
}

type panicWriter struct{}

func (panicWriter) Write([]byte) (int, error) { panic("writer kaboom") }

// An error case accepts any error, but not a crash: a recovered panic fails
// every case, so the corpus cannot count guardrun bugs as passes.
func TestCheckFailsOnRecoveredPanic(t *testing.T) {
	prg, err := guardrun.Compile("p.mld", []byte("log \"x\"\n"))
	require.NoError(t, err)
	_, err = prg.Run(context.Background(), guardrun.WithStderr(panicWriter{}))
	var crash *guardrun.Error
	require.ErrorAs(t, err, &crash)
	require.True(t, crash.Internal())

	anyError := Expectation{Error: "whatever"}
	require.True(t, Check(anyError, Outcome{Err: &guardrun.Error{Name: "VariableError", Message: "x"}}).Pass)
	v := Check(anyError, Outcome{Err: crash})
	require.False(t, v.Pass)
	require.Contains(t, v.Reason, "guardrun panicked: internal error: writer kaboom")
	require.False(t, Check(Expectation{}, Outcome{Err: crash}).Pass)
}

func TestStrictErrorText(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "error.md"), []byte("Guard blocked operation: no\n  Guard: @g (for data:secret)\n"), 0o644))
	pass := Verdict{Pass: true}
	cases := []struct {
		name, errorText, message string
		pass                     bool
	}{
		{"full match", "full", "Guard blocked operation: no\n  Guard: @g (for data:secret)\n  Operation: /show", true},
		{"full needs every line", "full", "Guard blocked operation: no\n  Guard: @h (for data:secret)", false},
		{"first line only", "first-line", "Guard blocked operation: no\n  Guard: @other", true},
		{"first line missing", "first-line", "UnenforcedPolicyError", false},
		{"output case untouched", "-", "anything", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := strictErrorText(dir, "example.mld", c.errorText, pass, c.message)
			require.Equal(t, c.pass, v.Pass, v.Reason)
		})
	}
}
