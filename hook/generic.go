package hook

import (
	"encoding/json"
	"fmt"

	"github.com/guardrun/guardrun/agent"
)

// generic speaks guardrun's own protocol, the one the agent engine's
// command hooks speak: `{"event": KIND, "data": EVENT}` in,
// `{"continue", "systemMessage", "data", "error"}` out.
type generic struct{}

func (generic) Name() string { return "generic" }

func (generic) Decode(raw map[string]any) (*Call, error) {
	kind, _ := raw["event"].(string)
	if kind == "" {
		return nil, fmt.Errorf(`malformed event: no "event" (expected {"event": KIND, "data": {...}})`)
	}
	data, err := object(raw, "data")
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(data)
	if err != nil {
		return nil, fmt.Errorf("malformed event: %v", err)
	}
	var ev agent.Event
	if err := json.Unmarshal(b, &ev); err != nil {
		return nil, fmt.Errorf("malformed event data: %v", err)
	}
	ev.Kind = agent.Kind(kind)
	c := &Call{Native: kind, Cwd: ev.Cwd}
	known := false
	for _, k := range agent.Kinds {
		known = known || k == ev.Kind
	}
	if !known {
		if ev.Tool != "" || ev.Input != nil {
			return nil, fmt.Errorf("unknown event %q carries a tool call, which guardrun cannot judge", kind)
		}
		c.Observed = true
		return c, nil
	}
	c.Events = []agent.Event{ev}
	return c, nil
}

func (generic) Answer(c *Call, d agent.Decision) Answer {
	out := map[string]any{"continue": d.Outcome == agent.Allow}
	switch d.Outcome {
	case agent.Allow:
		if d.Input != nil {
			out["data"] = d.Input
		} else if d.Output != nil {
			out["data"] = d.Output
		}
		if ctx := joinInjections(d.Context); ctx != "" {
			out["systemMessage"] = cut(ctx)
		}
	case agent.Ask:
		out["decision"] = "ask"
		out["systemMessage"] = cut("guardrun: approval required: " + nonEmpty(d.Question, d.Reason))
	case agent.Retry:
		out["decision"] = "retry"
		out["systemMessage"] = reason(d)
	default:
		out["systemMessage"] = reason(d)
	}
	if msg := joinInjections(d.Messages); msg != "" {
		out["message"] = cut(msg)
	}
	return Answer{Stdout: encode(out)}
}

// Fail answers continue:false with the reason twice (systemMessage for
// the agent, error for the host) and exits 1.
func (generic) Fail(c *Call, reason string) Answer {
	r := failText(reason)
	return Answer{Stdout: encode(map[string]any{"continue": false, "systemMessage": r, "error": r}), Code: 1}
}
