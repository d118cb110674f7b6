package agent

import (
	"math/rand"
	"slices"
	"strings"
	"testing"
)

// TestTokensAreFieldsOfSeparators: tokensCase splits as
// strings.FieldsFunc(text, separator) does, on generated texts of
// separators, punctuation, letters, multi-byte runes and invalid UTF-8.
func TestTokensAreFieldsOfSeparators(t *testing.T) {
	alphabet := []string{" ", "\t", "\n", "\u00a0", "\u2003", `"`, "{", "}", "[", "]", "(", ")", ",", ";", "<", ">", "|", "`", "*",
		".", ":", "!", "?", "'", "-", "=", "#", "a", "B", "z", "7", "é", "Ж", "日", "\xff", "\xc3", "@", "/"}
	r := rand.New(rand.NewSource(1))
	for n := 0; n < 20000; n++ {
		var b strings.Builder
		for k := r.Intn(24); k > 0; k-- {
			b.WriteString(alphabet[r.Intn(len(alphabet))])
		}
		text := b.String()
		var want []string
		var wantCaps []bool
		for _, f := range strings.FieldsFunc(text, separator) {
			if tok := trimToken(f); tok != "" {
				want = append(want, strings.ToLower(tok))
				wantCaps = append(wantCaps, tok[0] >= 'A' && tok[0] <= 'Z')
			}
		}
		got, caps := tokensCase(text)
		if !slices.Equal(got, want) || !slices.Equal(caps, wantCaps) {
			t.Fatalf("%q: tokens %q %v, want %q %v", text, got, caps, want, wantCaps)
		}
	}
}
