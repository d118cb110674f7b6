package taint

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// Tool lineage merges like sources: in order, without duplicates, and it
// counts for Equal, Contains and IsZero, so a merge never drops it.
func TestToolLineageMerges(t *testing.T) {
	a := New("secret").WithTools("fetch")
	b := Descriptor{}.WithTools("fetch", "verify")
	m := a.Merge(b)
	require.Equal(t, []string{"fetch", "verify"}, m.Tools())
	require.Equal(t, []string{"secret"}, m.Labels())
	require.False(t, Descriptor{}.WithTools("x").IsZero())
	require.False(t, a.Equal(New("secret")))
	require.False(t, New("secret").Contains(a))
	require.True(t, m.Contains(b))
	u := Union([]Descriptor{New("pii"), b}, []string{"secret"}, nil, nil)
	require.Equal(t, []string{"fetch", "verify"}, u.Tools())
	require.Equal(t, []string{"fetch", "verify"}, m.WithoutLabels("secret").Tools())
}
