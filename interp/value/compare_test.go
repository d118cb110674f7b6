package value

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestTruthy(t *testing.T) {
	falsy := []any{nil, Undefined{}, false, "", "false", "0", 0.0, math.NaN(), "NaN", arr(), NewObject()}
	for _, v := range falsy {
		require.False(t, Truthy(v), "%#v", v)
	}
	truthy := []any{true, "x", " ", "true", "00", 1.0, -1.0, arr(nil), obj("a", nil), fn("f")}
	for _, v := range truthy {
		require.True(t, Truthy(v), "%#v", v)
	}
}

func TestEqual(t *testing.T) {
	o := obj("a", 1.0)
	tests := []struct {
		a, b any
		want bool
	}{
		{nil, Undefined{}, true},
		{nil, nil, true},
		{nil, "", false},
		{nil, "null", false},
		{"true", true, true},
		{false, "false", true},
		{"yes", true, false},
		{"11", 11.0, true},
		{11.0, " 11 ", true},
		{"1e1", 10.0, true},
		{"abc", 0.0, false},
		{"", 0.0, false},
		{1.0, 1.0, true},
		{1.0, true, false},
		{"a", "a", true},
		{"a", "A", false},
		{arr("a", arr(1.0)), arr("a", arr("1")), true},
		{arr("a"), arr("a", "b"), false},
		{arr(), arr(), true},
		{o, o, true},
		{o, obj("a", 1.0), false},
		{arr("a"), "a", false},
	}
	for _, tt := range tests {
		require.Equal(t, tt.want, Equal(tt.a, tt.b), "%#v == %#v", tt.a, tt.b)
		require.Equal(t, tt.want, Equal(tt.b, tt.a), "%#v == %#v (swapped)", tt.b, tt.a)
	}
}

func TestTolerantMatch(t *testing.T) {
	tests := []struct {
		name     string
		actual   any
		expected any
		want     bool
	}{
		{"string to array", "alice@example.com", arr("alice@example.com"), true},
		{"subset", "alice@example.com", arr("alice@example.com", "bob@example.com"), true},
		{"order independent", arr("bob", "alice"), arr("alice", "bob"), true},
		{"comma separated", "bob, alice", arr("alice", "bob"), true},
		{"null-like string", "null", arr(), true},
		{"null", nil, arr(), true},
		{"empty array", arr(), arr(), true},
		{"numeric", "11", 11.0, true},
		{"mismatch", "alice", arr("mallory"), false},
		{"superset fails", arr("a", "b", "c"), arr("a", "b"), false},
		{"empty actual vs non-empty", arr(), arr("a"), false},
		{"non-empty vs empty", "a", arr(), false},
		{"plain strings", "a", "a", true},
		{"json array string", `["a","b"]`, arr("b", "a"), true},
		{"objects fall back to equality", obj("a", 1.0), obj("a", 1.0), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, TolerantMatch(tt.actual, tt.expected))
		})
	}
}

func TestCompare(t *testing.T) {
	tests := []struct {
		a, b any
		want int
	}{
		{1.0, 2.0, -1},
		{"10", 9.0, 1},
		{"10", "9", 1},
		{0.95, 0.9, 1},
		{"a", "b", -1},
		{"b", "a", 1},
		{"x", "x", 0},
		{nil, 1.0, -1},
		{true, 0.5, 1},
	}
	for _, tt := range tests {
		got, err := Compare(tt.a, tt.b)
		require.NoError(t, err)
		require.Equal(t, tt.want, got, "%#v vs %#v", tt.a, tt.b)
	}
	for _, bad := range [][2]any{{"a", 1.0}, {arr(), 1.0}, {obj(), "x"}, {math.NaN(), 1.0}} {
		_, err := Compare(bad[0], bad[1])
		require.Error(t, err)
	}
}
