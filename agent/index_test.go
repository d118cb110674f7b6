package agent

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"
)

// The fingerprint index, once built, follows every fingerprint added
// after (outputs, values, a replay's restore) and equals an index built
// from scratch, whatever the order of adds and lookups.
func TestIndexFollowsAppends(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	lim := Limits{MaxPrints: 1 << 20, MaxCalls: 100, MaxOrigins: 1 << 10}
	for iter := 0; iter < 200; iter++ {
		s := &Session{}
		e := &Engine{}
		for step := 0; step < 30; step++ {
			text := fmt.Sprintf("output %d of step %d: api key sk-test-%d and the user alice%d@example.com", r.IntN(5), step, r.IntN(3), r.IntN(4))
			i := s.addOrigin(Origin{Seq: step, Labels: []string{"secret"}}, lim)
			switch r.IntN(4) {
			case 0:
				s.addPrints(text, i, lim)
			case 1:
				s.addValues(text, i, lim)
			case 2:
				e.restore(s, Event{Kind: ToolAfter}, []Brought{{Labels: []string{"untrusted"}, Prints: winnow(text)}})
			case 3:
				s.contentLabels(text) // builds the index
				s.seenOrigins(text)
			}
		}
		if s.index == nil {
			s.buildIndex()
		}
		got := maps.Clone(s.index)
		s.index = nil
		s.buildIndex()
		if !maps.EqualFunc(got, s.index, slices.Equal[[]int]) {
			t.Fatalf("iteration %d: the index kept by appends differs from one built anew", iter)
		}
	}
}

// A text's tokens give the keys the text and each token are looked up
// by, as valueKey gives them from the text (argVar tokenizes once):
// over generated texts with escapes, punctuation, numbers and case.
func TestKeysFromTokens(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 13))
	parts := []string{"Alice", "alice@example.com", "https://x.io/a?b=1", "0042", "42", "4.20", `\n`, `\\`, `\t`, "...", "--", "é", "日本", "sk-live-4f9a8b7c", "A1B2C3D4E5", "'q'", "=", "#x", " ", "\t", ",", ";", "(", ")"}
	for i := 0; i < 5000; i++ {
		var text string
		for j := r.IntN(8); j >= 0; j-- {
			text += parts[r.IntN(len(parts))]
			if r.IntN(2) == 0 {
				text += " "
			}
		}
		toks := appendTokens(nil, text)
		want, wantOK := valueKey(text)
		got, gotOK := keyOfTokens(toks)
		if got != want || gotOK != wantOK {
			t.Fatalf("%q: keyOfTokens %x %v, valueKey %x %v", text, got, gotOK, want, wantOK)
		}
		for _, tok := range toks {
			if k, _ := valueKey(tok); k != tokenKey(tok) {
				t.Fatalf("%q: token %q: tokenKey %x, valueKey %x", text, tok, tokenKey(tok), k)
			}
		}
	}
}
