package hook

import (
	"sort"
	"strings"

	"github.com/guardrun/guardrun/agent"
)

// Answer is what the hook process prints and the status it exits with.
type Answer struct {
	Stdout []byte
	Stderr string
	Code   int
}

// Call is one decoded host event.
type Call struct {
	// Native is the host's event name (PreToolUse, beforeShellExecution…).
	Native string
	// Events are the normalized events to decide, in order: one, or for
	// Cursor's beforeReadFile the read and the content it returns.
	Events []agent.Event
	// Observed is set for an event the adapter does not know and that
	// carries no tool call: it is logged and not objected to.
	Observed bool
	// Cwd is where policy discovery starts.
	Cwd string
	// MCP marks an MCP tool (Claude answers a transform with
	// updatedMCPToolOutput).
	MCP bool
}

// Adapter speaks one host's hook protocol.
type Adapter interface {
	// Name is the host's name on the command line.
	Name() string
	// Decode maps the host's event onto normalized events. Unknown
	// fields are ignored; an event it cannot read is an error.
	Decode(raw map[string]any) (*Call, error)
	// Answer renders a decision about c.
	Answer(c *Call, d agent.Decision) Answer
	// Fail renders the denial of an event guardrun could not decide; c is
	// nil when the event could not even be decoded.
	Fail(c *Call, reason string) Answer
}

// Adapters are the protocols `guardrun hook` speaks, by name.
var Adapters = map[string]Adapter{
	"claude":  claude{},
	"codex":   claude{codex: true},
	"gemini":  gemini{},
	"cursor":  cursor{},
	"generic": generic{},
}

// Names lists the adapters' names, sorted.
func Names() []string {
	out := make([]string, 0, len(Adapters))
	for k := range Adapters {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// reason is the text of a refusal for the agent: the reason (or hint,
// or question), then what decided it and where its labels came from
// (unless the engine's reason says so already), whether retrying helps,
// and last the opt-in the denial names.
func reason(d agent.Decision) string {
	r := d.Reason
	switch d.Outcome {
	case agent.Retry:
		if d.Hint != "" {
			r = d.Hint
		}
	case agent.Ask:
		if d.Question != "" {
			r = d.Question
		}
	}
	if r == "" {
		r = "denied by the guardrun policy"
	}
	if dn := d.Denial; dn != nil {
		optIn := dn.OptInSentence()
		if optIn != "" && d.Outcome == agent.Deny && strings.HasSuffix(r, "."+optIn) {
			r = strings.TrimSuffix(r, "."+optIn)
		} else {
			optIn = ""
		}
		var by []string
		if dn.Rule != "" && !strings.Contains(r, "rule "+dn.Rule) {
			by = append(by, "rule "+dn.Rule)
		}
		if dn.Guard != "" && !strings.Contains(r, "guard "+dn.Guard) {
			by = append(by, "guard "+dn.Guard)
		}
		if len(by) > 0 {
			r += " (" + strings.Join(by, ", ") + ")"
		}
		if from := dn.Source(); from != "" && !strings.Contains(r, from) {
			r += "; " + from
		}
		if !dn.Retryable && d.Outcome == agent.Deny && dn.Class != agent.ClassError {
			r += "; do not retry this call"
		}
		if optIn != "" {
			r += "." + optIn
		}
	}
	return cut("guardrun: " + r)
}

// askReason is the reason of an ask the host cannot put to its user:
// what needs approval, and the two ways to grant it.
func askReason(d agent.Decision) string {
	return cut("guardrun: approval required, and this host cannot ask for it here: " + question(d) + " — " + grantText(d))
}

// askText is the question of an ask a host puts to its user. Claude
// Code in -p mode turns it into the denial the model reads, with this
// text alone: it also says how to grant the approval when nobody is
// there to answer.
func askText(d agent.Decision) string {
	return cut("guardrun asks: " + question(d) + ". If nobody can answer here (a non-interactive run): " + grantText(d))
}

// question is what an ask asks, with the guard that asks it.
func question(d agent.Decision) string {
	q := strings.TrimRight(nonEmpty(d.Question, d.Reason), ". ")
	if d.Asker != "" {
		q += " (guard " + d.Asker + ")"
	}
	return q
}

// grantText says how an approval nobody could give is granted: in an
// interactive session, or for good in the user's policy (with the
// policy's own hint when the decision has one).
func grantText(d agent.Decision) string {
	t := "approve it in an interactive session, or allow it in your policy"
	dn := d.Denial
	if dn != nil && dn.Hint != "" {
		t += ": " + dn.Hint
	}
	if d.AskOptIn != "" {
		// The guard that asks, turned off where it is declared.
		t += " (to stop asking, add to " + d.AskOptInFile + ": " + d.AskOptIn + ")"
	}
	return t
}

// unattendedReason is the denial an unattended run gives for an ask:
// nobody is there to approve it. why says how guardrun knows
// ("guardrun hook --unattended", "gemini -p").
func unattendedReason(d agent.Decision, why string) string {
	return "approval required, and this run is unattended (" + why + "): " + question(d) + " — " + grantText(d) + "; do not retry this call"
}

// withContext appends a decision's context for the agent to a denial's
// reason, for hosts (or events) that show the model a denial's reason
// but drop its additional context: the details (a stale file's diff,
// what to do next) must reach the model.
func withContext(r, ctx string) string {
	if ctx == "" {
		return r
	}
	return cut(r + "\n" + ctx)
}

func joinInjections(list []agent.Injection) string {
	parts := make([]string, 0, len(list))
	for _, x := range list {
		parts = append(parts, x.Text)
	}
	return strings.Join(parts, "\n")
}

func sortedKeys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// removedKeys lists keys of old that a rewrite dropped: hosts that merge
// a rewritten input over the old one (Gemini) cannot remove them.
func removedKeys(old, rewritten map[string]any) []string {
	var out []string
	for _, k := range sortedKeys(old) {
		if _, ok := rewritten[k]; !ok {
			out = append(out, k)
		}
	}
	return out
}

func failText(reason string) string { return cut("guardrun: " + reason) }
