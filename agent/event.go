package agent

import "time"

// Kind names an event (AGENT.md §2).
type Kind string

// Event kinds.
const (
	SessionStart    Kind = "session.start"
	SessionEnd      Kind = "session.end"
	PromptSubmit    Kind = "prompt.submit"
	ModelBefore     Kind = "model.before"
	ModelAfter      Kind = "model.after"
	ToolBefore      Kind = "tool.before"
	ToolAfter       Kind = "tool.after"
	AgentStop       Kind = "agent.stop"
	ContextCompress Kind = "context.compress"
	Notification    Kind = "notification"
)

// Kinds lists every event kind.
var Kinds = []Kind{SessionStart, SessionEnd, PromptSubmit, ModelBefore, ModelAfter, ToolBefore, ToolAfter, AgentStop, ContextCompress, Notification}

// Event is one normalized agent event. Which fields matter depends on
// Kind; unknown fields of a host's JSON are dropped by the adapter.
type Event struct {
	Kind    Kind      `json:"event"`
	Session string    `json:"session"`
	Time    time.Time `json:"time,omitzero"`
	Cwd     string    `json:"cwd,omitempty"`
	// Tool, CallID and Input describe a tool call (tool.before,
	// tool.after).
	Tool   string         `json:"tool,omitempty"`
	CallID string         `json:"call_id,omitempty"`
	Input  map[string]any `json:"input,omitempty"`
	// Output, Error and Duration are a tool's result (tool.after).
	Output   any           `json:"output,omitempty"`
	Error    string        `json:"error,omitempty"`
	Duration time.Duration `json:"duration,omitempty"`
	// Text is the prompt (prompt.submit), the request or response
	// (model.before/after), the last message (agent.stop) or the message
	// (notification).
	Text string `json:"text,omitempty"`
	// Source is session.start's source, session.end's reason or
	// context.compress's trigger.
	Source string `json:"source,omitempty"`
	// Model and Usage describe a model call (model.before/after): the
	// model's name and the tokens the host reported for the call so far,
	// nil when it sent text only (the engine then counts the text).
	Model string `json:"model,omitempty"`
	Usage *Usage `json:"usage,omitempty"`
	// StopActive is set on agent.stop when a stop hook already kept the
	// agent working (a retry must not loop forever).
	StopActive bool `json:"stop_active,omitempty"`
	// Replay marks an event fed again from the decision log (a replay):
	// a tool.after's output is not in the log, so what it brought into
	// the session is Brought, as logged (Record.Brought), not what its
	// missing output would bring.
	Replay  bool      `json:"-"`
	Brought []Brought `json:"-"`
	// Logged, on a replayed event, is the decision the log records for
	// an event that cannot be decided again (its input masked in the
	// log): the session advances over it as the hook's did, and nothing
	// is decided (the decision returned is Logged). Nil on every other
	// event.
	Logged *Outcome `json:"-"`
	// Hashes, on a replayed event, are the file hashes the hook took
	// for it (Record.Hashes): the engine reads them instead of the files,
	// which have changed since. Nil hashes the files as they are now (a
	// log written before records had them).
	Hashes map[string]string `json:"-"`
	// Confined says that the host will run this shell call, if it is
	// allowed, under `guardrun exec` with the session's kernel profile
	// (the hook sets it where it can: a host that takes a rewritten
	// command, confinement on, a kernel with Landlock). Code the line
	// runs that guardrun cannot see into (a workspace script, a test
	// runner, a build) is then contained by the kernel: after untrusted
	// content it runs offline, without the secrets and guardrun's own
	// files, so it alone does not make the call consequential
	// (`cmd:consequential`). The decision log records it (Record.Confined)
	// and a replay decides with it.
	Confined bool `json:"-"`
}

// opType is the operation type guards see for an event that is not a
// tool call: `guard before op:prompt`, `op:stop`, `op:session`…
func (k Kind) opType() string {
	switch k {
	case SessionStart, SessionEnd:
		return "session"
	case PromptSubmit:
		return "prompt"
	case ModelBefore, ModelAfter:
		return "model"
	case AgentStop:
		return "stop"
	case ContextCompress:
		return "compress"
	case Notification:
		return "notification"
	}
	return "exe"
}

func (k Kind) known() bool {
	for _, x := range Kinds {
		if x == k {
			return true
		}
	}
	return false
}
