package main

import (
	"bytes"
	"flag"
	"testing"

	"github.com/guardrun/guardrun/internal/cliflags"
	"github.com/stretchr/testify/require"
)

func TestParseInterspersed(t *testing.T) {
	newFS := func() (*flag.FlagSet, *bool, *bytes.Buffer) {
		var out bytes.Buffer
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		fs.SetOutput(&out)
		return fs, fs.Bool("json", false, "json output"), &out
	}

	fs, asJSON, _ := newFS()
	pos, ok := cliflags.ParseInterspersed(fs, []string{"a.md", "--json", "b.md"})
	require.True(t, ok)
	require.Equal(t, []string{"a.md", "b.md"}, pos)
	require.True(t, *asJSON)

	// -h and an unknown flag both stop with nothing to run; the flag
	// package has told the user why.
	for _, args := range [][]string{{"a.md", "-h"}, {"--nope", "a.md"}} {
		fs, _, out := newFS()
		pos, ok := cliflags.ParseInterspersed(fs, args)
		require.False(t, ok, "%q", args)
		require.Nil(t, pos, "%q", args)
		require.NotEmpty(t, out.String(), "%q", args)
	}
}
