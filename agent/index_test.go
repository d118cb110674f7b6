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
