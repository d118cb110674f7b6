package hook

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

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

// Replay re-decides the recorded events with policies (laid out as the
// hook lays them out: ReadLayers), in order, as the hook decided them:
// each session's state rebuilt event by event in a memory store, in the
// workspace the hook bound the session to (its binding in the state
// directory, else the repository around the session's first directory),
// on the clock of the record. It returns the decisions that change.
//
// The files a decision hashed (a write's targets, what a read saw) are
// read from the record (Record.Hashes), not from the disk, which has
// changed since; a record without them (an older log) hashes the files
// as they are.
//
// The log holds tool inputs but not outputs: a tool.after is not
// compared, and what its output brought into the session is restored
// from the record (Record.Brought; in a log written before records had
// it, nothing). Events whose input was masked (it carried a
// confidentiality label) cannot be decided again: they are reported as
// skipped, not as changes (a masked tool.after, which is never
// compared, is not reported), and the session goes on over them as the
// hook's did (Event.Logged: the event's number, the call with its
// logged decision, what an output brought), so the events after them
// are decided on the same state; events guardrun only observed are
// ignored. The replay has no approver: an ask a human
// answered (a record with an Approval) is compared as the ask it was.
func Replay(ctx context.Context, records []agent.Record, policies []agent.Policy) ([]Change, error) {
	if len(policies) == 0 {
		return nil, fmt.Errorf("replay: no policy given")
	}
	store := agent.NewMemoryStore()
	var clock time.Time
	now := func() time.Time { return clock }
	engines := map[string]*agent.Engine{}
	defer func() {
		for _, e := range engines {
			e.Close()
		}
	}()
	engineFor := func(workspace string) (*agent.Engine, error) {
		if e, ok := engines[workspace]; ok {
			return e, nil
		}
		e, err := agent.New(ctx, agent.Config{Policies: policies, Dir: policies[0].Dir, Workspace: workspace, Store: store, Now: now})
		if err != nil {
			return nil, err
		}
		engines[workspace] = e
		return e, nil
	}
	workspaces := map[string]string{}
	var out []Change
	for i, r := range records {
		if strings.HasPrefix(string(r.Event), "host:") {
			continue
		}
		ws, ok := workspaces[r.Session]
		if !ok {
			ws = replayWorkspace(r.Session, r.Cwd)
			workspaces[r.Session] = ws
		}
		e, err := engineFor(ws)
		if err != nil {
			return nil, err
		}
		ev := agent.Event{Kind: r.Event, Session: r.Session, Time: r.Time, Tool: r.Tool, CallID: r.CallID, Cwd: r.Cwd, Hashes: r.Hashes, Confined: r.Confined}
		clock = r.Time
		if masked(r.Input) {
			// Not decided again, but the session goes on over it as the
			// hook's did: the event's number, the call and its logged
			// decision, what its output brought.
			logged := r.Decision
			ev.Replay, ev.Logged, ev.Brought = true, &logged, r.Brought
			e.Decide(ctx, ev)
			if r.Event != agent.ToolAfter {
				out = append(out, Change{Index: i, Record: r, Skipped: "input masked in the log"})
			}
			continue
		}
		switch r.Event {
		case agent.ToolBefore:
			ev.Input = r.Input
		case agent.ToolAfter:
			ev.Input = r.Input
			ev.Replay = true
			ev.Brought = r.Brought
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

// replayWorkspace is the workspace the hook bound session to: its
// binding in the state directory, else the repository around (or the
// directory of) the session's first event.
func replayWorkspace(session, cwd string) string {
	if state, err := StateDir(); err == nil && session != "" {
		if b, err := readBinding(bindingPath(state, session)); err == nil && b.Workspace != "" {
			return b.Workspace
		}
	}
	if cwd == "" {
		return ""
	}
	return repoRoot(cwd)
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
