package code

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
)

// The JS runtime costs milliseconds to create; shell-only scripts must not
// pay for it.
func TestJSRuntimeStartsOnlyForJS(t *testing.T) {
	e := NewEngine(Options{})
	out, err := e.RunShell(context.Background(), ShellRequest{Lang: "sh", Script: "echo hi"})
	require.NoError(t, err)
	require.Equal(t, "hi", out)
	require.Nil(t, e.rt, "running a shell command started the JS runtime")

	v, err := e.RunJS(context.Background(), "return 1 + 1", nil)
	require.NoError(t, err)
	require.Equal(t, float64(2), v)
	require.NotNil(t, e.rt)
}
