package value

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestToInt(t *testing.T) {
	tests := []struct {
		in   float64
		want int
	}{
		{0, 0},
		{2.9, 2},
		{-2.9, -2},
		{math.NaN(), 0},
		{math.Inf(1), maxArgInt},
		{math.Inf(-1), -maxArgInt},
		{1e23, maxArgInt},
		{-1e23, -maxArgInt},
	}
	for _, tt := range tests {
		require.Equal(t, tt.want, toInt(tt.in), "%v", tt.in)
	}
}

// Huge, infinite and NaN arguments must neither panic nor allocate: they
// clamp like JavaScript indices or fail with a *Error.
func TestCallMethodExtremeArguments(t *testing.T) {
	inf, nan := math.Inf(1), math.NaN()
	tests := []struct {
		name string
		recv any
		meth string
		args []any
		want any
	}{
		{"padStart NaN", "ab", "padStart", []any{nan, "x"}, "ab"},
		{"padEnd -Infinity", "ab", "padEnd", []any{-inf}, "ab"},
		{"padEnd -1e23", "ab", "padEnd", []any{-1e23}, "ab"},
		{"padStart empty fill huge", "ab", "padStart", []any{1e23, ""}, "ab"},
		{"padStart multi-byte", "a", "padStart", []any{4.0, "é€"}, "é€éa"},
		{"repeat NaN", "ab", "repeat", []any{nan}, ""},
		{"repeat empty string huge", "", "repeat", []any{1e23}, ""},
		{"repeat fraction", "ab", "repeat", []any{2.7}, "abab"},
		{"slice huge", "hello", "slice", []any{1.0, 1e23}, "ello"},
		{"slice -Infinity", "hello", "slice", []any{-inf, 2.0}, "he"},
		{"slice NaN", "hello", "slice", []any{nan, 2.0}, "he"},
		{"substring Infinity", "hello", "substring", []any{2.0, inf}, "llo"},
		{"substr huge length", "hello", "substr", []any{1.0, 1e23}, "ello"},
		{"substr -1e23", "hello", "substr", []any{-1e23, 2.0}, "he"},
		{"includes from huge", "hello", "includes", []any{"h", 1e23}, false},
		{"startsWith -Infinity", "hello", "startsWith", []any{"he", -inf}, true},
		{"endsWith huge", "hello", "endsWith", []any{"lo", 1e23}, true},
		{"charAt huge", "hello", "charAt", []any{1e23}, ""},
		{"charAt -1e23", "hello", "charAt", []any{-1e23}, ""},
		{"string at -1", "hello", "at", []any{-1.0}, "o"},
		{"string at huge", "hello", "at", []any{1e23}, Undefined{}},
		{"string at -huge", "hello", "at", []any{-1e23}, Undefined{}},
		{"string at NaN", "hello", "at", []any{nan}, "h"},
		{"array at -1", arr(1.0, 2.0), "at", []any{-1.0}, 2.0},
		{"array at huge", arr(1.0, 2.0), "at", []any{1e23}, Undefined{}},
		{"array at -Infinity", arr(1.0, 2.0), "at", []any{-inf}, Undefined{}},
		{"array slice huge", arr(1.0, 2.0, 3.0), "slice", []any{-1e23, 1e23}, []any{1.0, 2.0, 3.0}},
		{"flat Infinity", arr(1.0, arr(2.0, arr(3.0, arr(4.0)))), "flat", []any{inf}, []any{1.0, 2.0, 3.0, 4.0}},
		{"flat -1e23", arr(1.0, arr(2.0)), "flat", []any{-1e23}, []any{1.0, arr(2.0)}},
		{"split limit huge", "a,b", "split", []any{",", 1e23}, []any{"a", "b"}},
		{"split limit NaN", "a,b", "split", []any{",", nan}, []any{}},
		{"toFixed NaN digits", 1.5, "toFixed", []any{nan}, "2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := CallMethod(tt.recv, tt.meth, tt.args)
			require.NoError(t, err)
			require.Equal(t, tt.want, got)
		})
	}
}

func TestCallMethodErrorsCarryHints(t *testing.T) {
	inf := math.Inf(1)
	tests := []struct {
		name    string
		recv    any
		meth    string
		args    []any
		message string
		hint    string
	}{
		{"padEnd 1e23", "ab", "padEnd", []any{1e23}, ".padEnd() would build a string larger than 64 MiB", "smaller length"},
		{"padStart Infinity", "ab", "padStart", []any{inf, "-"}, ".padStart() would build a string larger than 64 MiB", "smaller length"},
		{"padStart just over", "", "padStart", []any{float64(MaxString + 1), "x"}, "larger than 64 MiB", "smaller length"},
		{"repeat 1e23", "ab", "repeat", []any{1e23}, ".repeat() would build a string larger than 64 MiB", "fewer times"},
		{"repeat just over", "ab", "repeat", []any{float64(MaxString/2 + 1)}, "larger than 64 MiB", "fewer times"},
		{"repeat Infinity", "ab", "repeat", []any{inf}, ".repeat() count must be a finite number of zero or more, got Infinity", "zero or more"},
		{"repeat negative", "ab", "repeat", []any{-1.0}, "got -1", "zero or more"},
		{"toFixed range", 1.5, "toFixed", []any{101.0}, ".toFixed() digits must be between 0 and 100, got 101", "0 to 100"},
		{"toFixed Infinity", 1.5, "toFixed", []any{inf}, "got Infinity", "0 to 100"},
		{"match bad regexp", "a(b", "match", []any{"("}, `.match() got an invalid regular expression "(": missing closing )`, `escape regexp metacharacters with \`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := CallMethod(tt.recv, tt.meth, tt.args)
			var ve *Error
			var le *LimitError
			switch {
			case errors.As(err, &ve):
			case errors.As(err, &le):
				// Size limits are their own kind of error.
				ve = &Error{Message: le.Message, Hint: le.Hint}
				require.Contains(t, le.Message, "memory limit exceeded: ")
			default:
				t.Fatalf("%T %v", err, err)
			}
			require.Contains(t, ve.Message, tt.message)
			require.Equal(t, ve.Message, err.Error())
			require.Contains(t, ve.Hint, tt.hint)
		})
	}
}

func TestRepeatAtTheCap(t *testing.T) {
	got, err := CallMethod("ab", "repeat", []any{float64(MaxString / 2)})
	require.NoError(t, err)
	require.Len(t, got, MaxString)
	got, err = CallMethod("", "padEnd", []any{float64(MaxString - 1), "xy"})
	require.NoError(t, err)
	require.Len(t, got, MaxString-1)
	require.True(t, strings.HasSuffix(got.(string), "yx"))
}

func TestMatchingBracket(t *testing.T) {
	tests := []struct {
		s     string
		start int
		want  int
	}{
		{"(a)", 0, 2},
		{"x{a}", 1, 3},
		{`{"a": "}"}`, 0, 9},
		{`{'a': '}'}`, 0, 9},
		{"(`)` + f(1))", 0, 11},
		{`["\"]", 1]`, 0, 9},
		{"{[}]", 0, -1},
		{"{[1]", 0, -1},
		{"abc", 0, -1},
		{"", 0, -1},
		{"(", 5, -1},
		{"({a: [1, (2)]}) + 1", 0, 14},
	}
	for _, tt := range tests {
		require.Equal(t, tt.want, MatchingBracket(tt.s, tt.start), "%q", tt.s)
	}
}
