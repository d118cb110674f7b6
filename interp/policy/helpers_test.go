package policy

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/guardrun/guardrun/ast"
	"github.com/guardrun/guardrun/interp/value"
)

// obj builds an ordered object from key, value pairs.
func obj(kv ...any) *value.Object {
	o := value.NewObject()
	for i := 0; i+1 < len(kv); i += 2 {
		o.Set(kv[i].(string), kv[i+1])
	}
	return o
}

func arr(vs ...any) []any { return vs }

// pathLocator encodes the path it is asked for in the position, so tests
// can assert which entry an error points at.
func pathLocator(path []string) ast.Pos {
	return ast.Pos{File: "/" + strings.Join(path, "/"), Line: len(path) + 1, Col: 1}
}

func mustParse(t testing.TB, data any) *Config {
	t.Helper()
	c, err := Parse(data, pathLocator)
	require.NoError(t, err)
	return c
}

// setOf builds a Set with one named policy per config.
func setOf(t testing.TB, policies ...any) *Set {
	t.Helper()
	s := &Set{}
	for i := 0; i+1 < len(policies); i += 2 {
		s.Add(policies[i].(string), mustParse(t, policies[i+1]))
	}
	return s
}

func rules(names ...any) *value.Object {
	return obj("defaults", obj("rules", arr(names...)))
}

// requireDenial checks a check's result: nil when reason is empty, else a
// denial with that reason, rule, deciding policies and kind.
func requireDenial(t *testing.T, d *Denial, reason, rule string, policies []string, capability bool) {
	t.Helper()
	if reason == "" {
		require.Nil(t, d)
		return
	}
	require.NotNil(t, d)
	requireReason(t, reason, d.Reason)
	require.Equal(t, rule, d.Rule)
	require.Equal(t, policies, d.Policies)
	require.Equal(t, capability, d.Capability)
}

// requireReason checks a denial's reason: want itself, or want followed
// by the details a capability denial adds (the command part that
// matched and the opt-in, after ": " or "; ").
func requireReason(t *testing.T, want, got string) {
	t.Helper()
	if got == want {
		return
	}
	if !strings.HasPrefix(got, want+": ") && !strings.HasPrefix(got, want+"; ") {
		require.Equal(t, want, got)
	}
	if strings.HasPrefix(want, "Dangerous capability") || strings.Contains(want, "cannot be checked by policy") {
		require.Contains(t, got, "policy @optIn = { danger: [", "a capability denial names its opt-in")
	}
}
