package interp

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The live document stream must equal the assembled document, trimmed of
// newlines at both ends, plus one final newline, however the text arrives.
func TestDocStreamMatchesAssembledDocument(t *testing.T) {
	chunks := [][]string{
		{"\n\n# Title\n", "\n", "\n\n\n", "body\n\n\n\nmore", "\n"},
		{"a", "b\n", "\n\n\n", "\n", "c\n\n"},
		{"\n\n"},
		{"x"},
		{"one\n\n\ntwo\n\n\n\nthree"},
	}
	for _, parts := range chunks {
		var live strings.Builder
		o := &output{live: docStream{w: &live}}
		for _, p := range parts {
			o.writeDoc(p)
		}
		o.live.finish()
		want := strings.Trim(o.document(), "\n")
		if want != "" {
			want += "\n"
		}
		require.Equal(t, want, live.String(), "chunks %q", parts)
	}
}
