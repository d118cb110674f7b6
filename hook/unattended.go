package hook

import (
	"os"

	"github.com/guardrun/guardrun/agent"
)

// UnattendedEnv names the environment variable that, set to 1 (or
// true), makes `guardrun hook` answer as with --unattended.
const UnattendedEnv = "GUARDRUN_UNATTENDED"

// unattendedFromEnv reports whether UnattendedEnv asks for an unattended
// run.
func unattendedFromEnv() bool {
	switch os.Getenv(UnattendedEnv) {
	case "1", "true", "yes":
		return true
	}
	return false
}

// unattended is an adapter for a run nobody watches (`gemini -p --yolo`,
// `claude -p`, `codex exec`): an ask is answered as a denial that says
// what needs approval and how to grant it, because a host asking its
// user there either hangs (Gemini CLI headless waits for a confirmation
// nobody gives) or refuses with the bare question.
type unattended struct {
	Adapter
	// why says how guardrun knows nobody watches.
	why string
}

// Unattended wraps a for a run nobody watches (see unattended), as
// --unattended asks.
func Unattended(a Adapter) Adapter { return unattended{a, "guardrun hook --unattended"} }

// unattendedBecause wraps a for a run nobody watches, said by why (the
// host's headless flag).
func unattendedBecause(a Adapter, why string) Adapter { return unattended{a, why} }

func (u unattended) Answer(c *Call, d agent.Decision) Answer {
	if d.Outcome == agent.Ask {
		d.Outcome = agent.Deny
		d.Reason = unattendedReason(d, u.why)
		d.Question = ""
		if d.Denial != nil {
			// The reason says it all, and asking again gets the same
			// answer.
			dn := *d.Denial
			dn.Rule, dn.Guard, dn.Retryable = "", "", true
			d.Denial = &dn
		}
	}
	return u.Adapter.Answer(c, d)
}
