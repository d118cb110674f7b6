package guard

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// A check leaves the registry and its guards as they were registered
// (selection marks live in the engine): engines over one registry check
// operations from many goroutines at once, each selecting as it would
// alone (run with -race).
func TestEnginesShareARegistry(t *testing.T) {
	reg := NewRegistry()
	for _, d := range [...]struct{ name, trigger string }{{"s", "secret"}, {"p", "pii"}, {"x", "op:exe"}, {"f", "@f"}} {
		require.NoError(t, reg.Add(New(gd(d.name, "before", d.trigger), nil)))
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var seen []string
			en := NewEngine(reg, func(ev *Evaluation) (Outcome, error) {
				seen = append(seen, ev.Guard.Label()+"/"+ev.Scope.String())
				return Outcome{}, nil
			})
			for range 200 {
				seen = seen[:0]
				en.Before(exeCall(labelled("a", "secret", "pii"), labelled("b", "pii")), Options{})
				if len(seen) != 5 {
					t.Errorf("selected %v", seen)
					return
				}
			}
		}()
	}
	wg.Wait()
}
