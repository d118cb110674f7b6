package rules_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/guardrun/guardrun/agent"
)

// TestStarterDecidesSessionsConcurrently: one engine with the whole
// starter policy decides every fixture session of every rule, first one
// session at a time, then eight copies of each session at once from as
// many goroutines. Each decision is the same either way: decisions of
// different sessions share the loaded policy and nothing else (run it
// with -race: the engine holds no lock around a policy).
func TestStarterDecidesSessionsConcurrently(t *testing.T) {
	dir, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	type session struct {
		name   string
		events []agent.Event
	}
	var sessions []session
	for _, name := range fixtureNames() {
		for _, c := range readFixture(t, name).Cases {
			sessions = append(sessions, session{name + "/" + c.Name, c.Events})
		}
	}
	if len(sessions) < 50 {
		t.Fatalf("only %d fixture sessions", len(sessions))
	}
	e := starter(t, dir)
	outcome := func(id string, s session) []string {
		var out []string
		for _, ev := range s.events {
			ev.Session = id
			d := e.Decide(context.Background(), ev)
			out = append(out, fmt.Sprintf("%s %s %v", d.Outcome, d.Reason, d.Labels))
		}
		return out
	}
	want := make([][]string, len(sessions))
	for i, s := range sessions {
		want[i] = outcome(fmt.Sprintf("seq-%d", i), s)
	}
	var wg sync.WaitGroup
	errs := make(chan string, 8*len(sessions))
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for k := range sessions {
				i := (k + g*7) % len(sessions)
				got := outcome(fmt.Sprintf("par-%d-%d", g, i), sessions[i])
				for j := range got {
					// A reason may name the session's own id; compare the rest.
					if strings.ReplaceAll(got[j], fmt.Sprintf("par-%d-%d", g, i), "S") != strings.ReplaceAll(want[i][j], fmt.Sprintf("seq-%d", i), "S") {
						errs <- fmt.Sprintf("%s event %d: concurrently %q, alone %q", sessions[i].name, j, got[j], want[i][j])
					}
				}
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	n := 0
	for msg := range errs {
		if n++; n <= 10 {
			t.Error(msg)
		}
	}
	if n > 10 {
		t.Errorf("… and %d more differences", n-10)
	}
}
