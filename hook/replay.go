package hook

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/guardrun/guardrun/agent"
)

// ReadLog reads a decision log (JSONL). A line that is not a record is
// an error naming the line: a torn or edited log is not replayed
// silently.
func ReadLog(r io.Reader) ([]agent.Record, error) {
	var out []agent.Record
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		var rec agent.Record
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			return nil, fmt.Errorf("log line %d: %v", n, err)
		}
		out = append(out, rec)
	}
	return out, sc.Err()
}

// Change is a recorded decision that a replay decides differently, or
// one it could not compare.
type Change struct {
	Index  int
	Record agent.Record
	// New is the replayed decision; Skipped says why there is none.
	New     agent.Decision
	Skipped string
}

// Replay re-decides the recorded events with policies, in order, each
// session in its own state (a fresh memory store), and returns the
// decisions that change. The log holds tool inputs but not outputs (so
// tool.after decisions are not compared), and
// masks values that carried a confidentiality label: events whose input
// was masked cannot be re-decided faithfully and are reported as
// skipped, not as changes; events guardrun only observed are ignored.
// The replay has no approver: an ask a human answered (a record with an
// Approval) is compared as the ask it was.
func Replay(ctx context.Context, records []agent.Record, policies []agent.Policy, dir string) ([]Change, error) {
	e, err := agent.New(ctx, agent.Config{Policies: policies, Dir: dir, Store: agent.NewMemoryStore()})
	if err != nil {
		return nil, err
	}
	defer e.Close()
	var out []Change
	for i, r := range records {
		if strings.HasPrefix(string(r.Event), "host:") {
			continue
		}
		if masked(r.Input) {
			out = append(out, Change{Index: i, Record: r, Skipped: "input masked in the log"})
			continue
		}
		ev := agent.Event{Kind: r.Event, Session: r.Session, Time: r.Time, Tool: r.Tool, CallID: r.CallID, Cwd: r.Cwd}
		switch r.Event {
		case agent.ToolBefore, agent.ToolAfter:
			ev.Input = r.Input
		default:
			// Lifecycle events log their text fields as the input.
			for _, k := range []string{"prompt", "message", "request", "response", "text"} {
				if s, ok := r.Input[k].(string); ok {
					ev.Text = s
				}
			}
			ev.Source, _ = r.Input["source"].(string)
			ev.StopActive, _ = r.Input["stopActive"].(bool)
		}
		d := e.Decide(ctx, ev)
		if r.Event == agent.ToolAfter {
			// Fed for the session's state; without the output its
			// decision is not comparable.
			continue
		}
		if d.Outcome != policyOutcome(r) {
			out = append(out, Change{Index: i, Record: r, New: d})
		}
	}
	return out, nil
}

// policyOutcome is what the policies decided of a recorded event: an
// ask, when the engine's approver settled it (the record's decision is
// then the human's), else the record's decision. A record written
// before the log recorded approvals has its decision only.
func policyOutcome(r agent.Record) agent.Outcome {
	if r.Approval != nil {
		return agent.Ask
	}
	return r.Decision
}

func masked(v any) bool {
	switch t := v.(type) {
	case string:
		return t == agent.Masked
	case map[string]any:
		for _, x := range t {
			if masked(x) {
				return true
			}
		}
	case []any:
		for _, x := range t {
			if masked(x) {
				return true
			}
		}
	}
	return false
}
