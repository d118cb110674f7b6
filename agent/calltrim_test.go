package agent

import (
	"fmt"
	"slices"
	"testing"
)

// Trimming a session's calls keeps the latest MaxCalls (at least) and
// never changes what a copy of the session made before (the file store
// diffs an event's session against one) reads, however many calls follow.
func TestCallTrimKeepsEarlierCopies(t *testing.T) {
	lim := Limits{MaxCalls: 20}.orDefault()
	s := &Session{ID: "s"}
	var copies []*Session
	var seen [][]Call
	for i := 0; i < 500; i++ {
		if i%7 == 0 {
			c := cloneSession(s)
			copies = append(copies, c)
			seen = append(seen, slices.Clone(c.Calls))
		}
		s.addCall(Call{Seq: i, Name: fmt.Sprintf("t%d", i)}, lim)
		if len(s.Calls) > lim.MaxCalls || s.Calls[len(s.Calls)-1].Seq != i {
			t.Fatalf("after call %d: %d calls kept, last %d", i, len(s.Calls), s.Calls[len(s.Calls)-1].Seq)
		}
		for k := 1; k < len(s.Calls); k++ {
			if s.Calls[k].Seq != s.Calls[k-1].Seq+1 {
				t.Fatalf("after call %d: calls out of order at %d", i, k)
			}
		}
	}
	if len(s.Calls) < lim.MaxCalls*9/10 {
		t.Fatalf("only %d calls kept of %d", len(s.Calls), lim.MaxCalls)
	}
	for i, c := range copies {
		if !slices.Equal(c.Calls, seen[i]) {
			t.Fatalf("copy %d changed after later calls", i)
		}
	}
}
