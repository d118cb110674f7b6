package rules_test

import (
	"context"
	"strings"
	"testing"

	"github.com/guardrun/guardrun/policytest"
)

// TestBudgetEvents runs budget.test.mld: budget.guard's ask-then-deny
// over a Gemini session's tokens, the price table's cost, the counters
// across a session end and resume, and the per-turn context budget.
func TestBudgetEvents(t *testing.T) {
	rs, err := policytest.Run(context.Background(), []string{"budget.test.mld"}, policytest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) < 5 {
		t.Fatalf("%d tests ran, want 5 or more", len(rs))
	}
	for _, r := range rs {
		if len(r.Failures) > 0 {
			t.Errorf("%s:\n%s", r.Name, strings.Join(r.Failures, "\n"))
		}
	}
}
