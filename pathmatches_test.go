package guardrun

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// @pathMatches matches workspace-relative paths with doublestar globs:
// `*` and `?` within a segment, `**` across them (zero or more
// directories), classes and alternatives; a malformed glob is an error.
func TestPathMatchesGlobs(t *testing.T) {
	cases := []struct {
		path, glob string
		want       bool
	}{
		{"src/a.go", "src/**", true},
		{"src/x/y/a.go", "src/**", true},
		{"docs/a.md", "src/**", false},
		{"a.go", "**/*.go", true},
		{"x/y/a.go", "**/*.go", true},
		{"x/a.go", "*.go", false},
		{"a.go", "*.go", true},
		{"x/.env", "**/.env", true},
		{".env.local", "**/.env.*", true},
		{"home/.ssh/id_rsa", "**/.ssh/**", true},
		{"home/.sshx/id_rsa", "**/.ssh/**", false},
		{"a/b.md", "a/?.md", true},
		{"a/bc.md", "a/?.md", false},
		{"a/b.md", "{a,c}/*.md", true},
		{"c/b.md", "{a,c}/*.md", true},
		{"d/b.md", "{a,c}/*.md", false},
		{"k1.pem", "k[0-9].pem", true},
		{"kx.pem", "k[0-9].pem", false},
	}
	dir := t.TempDir()
	var src strings.Builder
	for _, c := range cases {
		fmt.Fprintf(&src, "show @pathMatches(%q, [\"nomatch/**\", %q])\n", c.path, c.glob)
	}
	res := runIn(t, dir, src.String())
	got := strings.Fields(res)
	require.Len(t, got, len(cases))
	for i, c := range cases {
		require.Equal(t, fmt.Sprint(c.want), got[i], "@pathMatches(%q, %q)", c.path, c.glob)
	}

	prg, err := Compile("p.mld", []byte(`show @pathMatches("a", ["{a"])`))
	require.NoError(t, err)
	_, err = prg.Run(context.Background(), WithDir(dir), WithStateDir(t.TempDir()))
	require.ErrorContains(t, err, `bad glob "{a"`)
}

func runIn(t *testing.T, dir, src string) string {
	t.Helper()
	prg, err := Compile("p.mld", []byte(src))
	require.NoError(t, err)
	res, err := prg.Run(context.Background(), WithDir(dir), WithStateDir(t.TempDir()))
	require.NoError(t, err)
	return res.Stdout
}
