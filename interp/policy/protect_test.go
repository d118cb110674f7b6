package policy

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestProtects(t *testing.T) {
	s := setOf(t, "p", obj(
		"defaults", obj("rules", arr("no-secret-exfil", "no-send-to-unknown"), "unlabeled", "untrusted"),
		"labels", obj("pii", obj("deny", arr("op:show")))))
	for l, want := range map[string]bool{
		"secret":    true,  // a deny rule's label
		"pii":       true,  // a labels key
		"untrusted": true,  // the unlabeled stance
		"known":     false, // positional rules require it; removing it only restricts
		"sensitive": false, // its rule is not active
	} {
		require.Equal(t, want, s.Protects(l), l)
	}
	require.False(t, (&Set{}).Protects("secret"), "no policy protects nothing")
}

func TestGrantsTrust(t *testing.T) {
	for l, want := range map[string]bool{
		"known": true, "known:internal": true, "trusted": true,
		"knownish": false, "secret": false, "untrusted": false,
	} {
		require.Equal(t, want, GrantsTrust(l), l)
	}
}

func TestCountsUntrusted(t *testing.T) {
	none := &Set{}
	stance := setOf(t, "p", obj("defaults", obj("unlabeled", "untrusted")))
	require.True(t, none.CountsUntrusted(in("untrusted")))
	require.True(t, none.CountsUntrusted(in("influenced")))
	require.False(t, none.CountsUntrusted(in("src:cmd")))
	require.True(t, stance.CountsUntrusted(in("src:cmd")), "provenance only under the untrusted stance")
	require.False(t, stance.CountsUntrusted(in("src:cmd", "pii")))
	require.False(t, stance.CountsUntrusted(nil))
}
