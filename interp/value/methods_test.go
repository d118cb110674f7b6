package value

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestCallMethod(t *testing.T) {
	o := obj("a", 1.0, "b", "x")
	tests := []struct {
		name string
		recv any
		meth string
		args []any
		want any
	}{
		{"length", "héllo", "length", nil, 5.0},
		{"includes", "hello", "includes", []any{"ell"}, true},
		{"includes no", "hello", "includes", []any{"z"}, false},
		// Invalid UTF-8 is read as characters (each bad byte U+FFFD), with
		// or without a position argument.
		{"includes invalid utf8", "a\xffb", "includes", []any{"\uFFFD"}, true},
		{"endsWith invalid utf8", "a\xff", "endsWith", []any{"\uFFFD"}, true},
		{"length invalid utf8", "a\xffb", "length", nil, 3.0},
		{"includes from", "héllo", "includes", []any{"h", 1.0}, false},
		{"startsWith", "hello", "startsWith", []any{"he"}, true},
		{"endsWith", "hello", "endsWith", []any{"lo"}, true},
		{"indexOf", "hello", "indexOf", []any{"l"}, 2.0},
		{"indexOf missing", "hello", "indexOf", []any{"z"}, -1.0},
		{"lastIndexOf", "hello", "lastIndexOf", []any{"l"}, 3.0},
		{"trim", "  a b \n", "trim", nil, "a b"},
		{"trimStart", "  a ", "trimStart", nil, "a "},
		{"trimEnd", "  a ", "trimEnd", nil, "  a"},
		{"slice", "hello", "slice", []any{1.0, 3.0}, "el"},
		{"slice negative", "hello", "slice", []any{-3.0}, "llo"},
		{"slice crossed", "hello", "slice", []any{3.0, 1.0}, ""},
		{"substring swaps", "hello", "substring", []any{3.0, 1.0}, "el"},
		{"substring negative", "hello", "substring", []any{-2.0, 2.0}, "he"},
		{"upper", "abc", "toUpperCase", nil, "ABC"},
		{"lower", "ABC", "toLowerCase", nil, "abc"},
		{"replace first", "a-a-a", "replace", []any{"a", "b"}, "b-a-a"},
		{"replaceAll", "a-a-a", "replaceAll", []any{"a", "b"}, "b-b-b"},
		{"split", "a,b,c", "split", []any{","}, []any{"a", "b", "c"}},
		{"split empty", "abc", "split", []any{""}, []any{"a", "b", "c"}},
		{"split no arg", "a,b", "split", nil, []any{"a,b"}},
		{"split limit", "a,b,c", "split", []any{",", 2.0}, []any{"a", "b"}},
		{"match", "abc123", "match", []any{"[0-9]+"}, []any{"123"}},
		{"match groups", "k=v", "match", []any{"(\\w)=(\\w)"}, []any{"k=v", "k", "v"}},
		{"match none", "abc", "match", []any{"[0-9]"}, nil},
		{"match flags", "ABC", "match", []any{"/b/i"}, []any{"B"}},
		{"padStart", "5", "padStart", []any{3.0, "0"}, "005"},
		{"padEnd", "ab", "padEnd", []any{5.0, "xy"}, "abxyx"},
		{"repeat", "ab", "repeat", []any{3.0}, "ababab"},
		{"charAt", "abc", "charAt", []any{1.0}, "b"},
		{"charAt out", "abc", "charAt", []any{9.0}, ""},
		{"string at", "abc", "at", []any{-1.0}, "c"},
		{"array length", arr(1.0, 2.0), "length", nil, 2.0},
		{"array includes", arr("a", "b"), "includes", []any{"b"}, true},
		{"array includes strict", arr("1"), "includes", []any{1.0}, false},
		{"array indexOf", arr("a", "b"), "indexOf", []any{"b"}, 1.0},
		{"join", arr("a", 1.0, nil, true), "join", []any{"-"}, "a-1--true"},
		{"join default", arr("a", "b"), "join", nil, "a,b"},
		{"join nested", arr(arr(1.0, 2.0), "x"), "join", []any{" "}, "1,2 x"},
		{"array slice", arr(1.0, 2.0, 3.0), "slice", []any{-2.0}, []any{2.0, 3.0}},
		{"concat", arr(1.0), "concat", []any{arr(2.0, 3.0), 4.0}, []any{1.0, 2.0, 3.0, 4.0}},
		{"reverse", arr(1.0, 2.0, 3.0), "reverse", nil, []any{3.0, 2.0, 1.0}},
		{"sort as strings", arr(10.0, 9.0, 1.0), "sort", nil, []any{1.0, 10.0, 9.0}},
		{"sort strings", arr("b", "a", "C"), "sort", nil, []any{"C", "a", "b"}},
		{"flat", arr(1.0, arr(2.0, arr(3.0))), "flat", nil, []any{1.0, 2.0, arr(3.0)}},
		{"flat deep", arr(1.0, arr(2.0, arr(3.0))), "flat", []any{2.0}, []any{1.0, 2.0, 3.0}},
		{"at", arr(1.0, 2.0, 3.0), "at", []any{-1.0}, 3.0},
		{"at out", arr(1.0), "at", []any{5.0}, Undefined{}},
		{"keys", o, "keys", nil, []any{"a", "b"}},
		{"values", o, "values", nil, []any{1.0, "x"}},
		{"object includes", o, "includes", []any{"b"}, true},
		{"isString", "x", "isString", nil, true},
		{"isString no", 1.0, "isString", nil, false},
		{"isNumber", 1.0, "isNumber", nil, true},
		{"isBoolean", false, "isBoolean", nil, true},
		{"isArray", arr(), "isArray", nil, true},
		{"isArray object", o, "isArray", nil, false},
		{"isObject", o, "isObject", nil, true},
		{"isObject array", arr(), "isObject", nil, false},
		{"isNull", nil, "isNull", nil, true},
		{"isNull string", "x", "isNull", nil, false},
		{"isDefined", "x", "isDefined", nil, true},
		{"isDefined null", nil, "isDefined", nil, false}, // mlld: null is not defined
		{"isDefined undefined", Undefined{}, "isDefined", nil, false},
		{"isEmpty string", "", "isEmpty", nil, true},
		{"isEmpty array", arr(1.0), "isEmpty", nil, false},
		{"number toString", 3.0, "toString", nil, "3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := CallMethod(tt.recv, tt.meth, tt.args)
			require.NoError(t, err)
			require.Equal(t, tt.want, got)
		})
	}
}

func TestCallMethodDoesNotMutate(t *testing.T) {
	a := arr(3.0, 1.0, 2.0)
	_, err := CallMethod(a, "sort", nil)
	require.NoError(t, err)
	_, err = CallMethod(a, "reverse", nil)
	require.NoError(t, err)
	require.Equal(t, []any{3.0, 1.0, 2.0}, a)
}

func TestCallMethodUnknown(t *testing.T) {
	for _, recv := range []any{"s", arr(), obj(), 1.0, nil, Undefined{}} {
		_, err := CallMethod(recv, "frobnicate", nil)
		require.Error(t, err)
		require.True(t, errors.Is(err, ErrNoMethod))
		require.Contains(t, err.Error(), "frobnicate")
	}
	_, err := CallMethod("s", "match", []any{"("})
	require.Error(t, err)
	require.False(t, errors.Is(err, ErrNoMethod))
}
