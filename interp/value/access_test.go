package value

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestProperty(t *testing.T) {
	tests := []struct {
		name   string
		data   any
		prop   string
		want   any
		wantOK bool
	}{
		{"string length", "héllo", "length", 5.0, true},
		{"array length", arr(1.0, 2.0), "length", 2.0, true},
		{"object field", obj("a", "x"), "a", "x", true},
		{"object null field", obj("a", nil), "a", nil, true},
		{"missing field", obj("a", "x"), "b", nil, false},
		{"object length is a field", obj("length", 9.0), "length", 9.0, true},
		{"no projection", arr(obj("a", 1.0)), "a", nil, false},
		{"array numeric", arr("x", "y"), "1", "y", true},
		{"string other", "abc", "foo", nil, false},
		{"null", nil, "a", nil, false},
		{"number", 1.0, "length", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := Property(tt.data, tt.prop)
			require.Equal(t, tt.wantOK, ok)
			require.Equal(t, tt.want, got)
		})
	}
}

func TestIndex(t *testing.T) {
	a := arr("a", "b", "c")
	tests := []struct {
		name   string
		data   any
		idx    any
		want   any
		wantOK bool
	}{
		{"first", a, 0.0, "a", true},
		{"negative", a, -1.0, "c", true},
		{"out of range", a, 3.0, nil, false},
		{"too negative", a, -4.0, nil, false},
		{"numeric string", a, "1", "b", true},
		{"fraction", a, 0.5, nil, false},
		{"object key", obj("k", 1.0), "k", 1.0, true},
		{"object number key", obj("2", "two"), 2.0, "two", true},
		{"object missing", obj("k", 1.0), "z", nil, false},
		{"string char", "héllo", 1.0, "é", true},
		{"string negative", "abc", -1.0, "c", true},
		{"string out", "abc", 5.0, nil, false},
		{"null", nil, 0.0, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := Index(tt.data, tt.idx)
			require.Equal(t, tt.wantOK, ok)
			require.Equal(t, tt.want, got)
		})
	}
}

func TestTokens(t *testing.T) {
	require.Equal(t, 0, Tokens(""))
	require.Equal(t, 1, Tokens("abc"))
	require.Equal(t, 3, Tokens("abcdefghij"))
	require.Equal(t, 5, Tokens("12345678901234567890"))
}
