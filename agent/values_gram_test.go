package agent

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// gramHashes hashes each run of tokens as valueHash hashes the run
// joined by spaces, over generated token lists.
func TestGramHashesMatchJoined(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	words := []string{"a", "john.doe@clientcorp.com", "98.7", "US12", "ünï", "", "Spotify", "-", "x y"}
	for iter := 0; iter < 2000; iter++ {
		toks := make([]string, 1+r.IntN(12))
		for i := range toks {
			toks[i] = words[r.IntN(len(words))]
		}
		i := r.IntN(len(toks))
		upTo := 2 + r.IntN(8)
		seen := 0
		gramHashes(toks, i, upTo, func(n int, h uint64) bool {
			seen++
			if want := valueHash(strings.Join(toks[i:i+n], " ")); h != want {
				t.Fatalf("toks %q from %d, n %d: got %x, want %x", toks, i, n, h, want)
			}
			return true
		})
		if want := max(0, min(upTo, len(toks)-i)-1); seen != want {
			t.Fatalf("toks %q from %d up to %d: %d runs, want %d", toks, i, upTo, seen, want)
		}
	}
}
