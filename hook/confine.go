package hook

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/guardrun/guardrun/agent"
	"github.com/guardrun/guardrun/interp/policy"
	"github.com/guardrun/guardrun/sandbox"
)

// ConfineEnv, set to 0, turns confinement off (as --confine=false); set
// to 1 it is on, the default.
const ConfineEnv = "GUARDRUN_CONFINE"

// confineHosts are the adapters whose host runs a rewritten shell
// command, by the event that carries it (docs/agents.md): Claude Code's
// and Codex's PreToolUse updatedInput, Gemini CLI's BeforeTool
// tool_input. Cursor's shell event (beforeShellExecution) takes no
// rewritten command.
var confineHosts = map[string]string{"claude": "PreToolUse", "codex": "PreToolUse", "gemini": "BeforeTool"}

// confinable returns the program that runs call's shell line under the
// kernel floor (this one: guardrun and guardrun-hook both have exec), or
// why the hook cannot: a host that takes no rewritten command for this
// event, confinement off, not one tool.before with a command line, a
// kernel without Landlock. The engine decides a confinable call as one
// whose unseen code is contained (agent.Event.Confined).
func confinable(hostName string, call *Call, c agent.Confinement) (exe, why string) {
	if c.Off {
		return "", "confinement is off"
	}
	if confineHosts[hostName] == "" || call.Native != confineHosts[hostName] || len(call.Events) != 1 {
		return "", "the host does not run a rewritten command for this event"
	}
	ev := call.Events[0]
	if _, ok := ev.Input["command"].(string); ev.Kind != agent.ToolBefore || !ok {
		return "", "not a shell call"
	}
	if _, err := sandbox.ABI(); err != nil {
		return "", "guardrun exec: " + err.Error()
	}
	exe, err := os.Executable()
	if err != nil {
		return "", err.Error()
	}
	return exe, ""
}

// confine is the hook's answer for a shell call that the policy
// allowed and that guardrun cannot see into, or that comes after
// untrusted content: the same line, run by bash under `guardrun exec`
// with the session's profile (starter, plus offline once the session
// holds a secret or has read untrusted content) and the policy's
// @confine choices (ports kept, secrets revealed to named commands,
// writes). It changes nothing for another call, a decision that is not a
// plain allow, a host that cannot take a rewritten input, or a policy
// that turned confinement off. Where the kernel cannot confine, the
// decision stays as it is and says "unconfined" (a warning, logged): the
// policy's decision without the floor, never a silent weakening; but a
// call the engine decided as confined (agent.Event.Confined) asks
// instead, since its allow counted on the floor. A policy's rewrite of
// the command is confined as the command it is.
func confine(ctx context.Context, hostName string, call *Call, d agent.Decision, store agent.Store, workspace string, c agent.Confinement) agent.Decision {
	if c.Off || confineHosts[hostName] == "" || call.Native != confineHosts[hostName] || len(call.Events) != 1 || d.Outcome != agent.Allow {
		return d
	}
	ev := call.Events[0]
	// A policy's rewrite (allow @value) is the command that runs: it is
	// the one confined.
	src := ev.Input
	if d.Input != nil {
		src = d.Input
	}
	line, ok := src["command"].(string)
	if ev.Kind != agent.ToolBefore || !ok {
		return d
	}
	f := policy.CommandLineFacts(line)
	if underExec(f) {
		return d
	}
	secret, untrusted := sessionHolds(ctx, store, ev.Session)
	if !untrusted && !opaqueLine(f, line) {
		return d
	}
	exe, why := confinable(hostName, call, c)
	if why != "" {
		if ev.Confined {
			return askUnconfined(d, why)
		}
		d.Warnings = append(d.Warnings, "unconfined: "+why)
		return d
	}
	profile := sandbox.Starter
	if c.Writes {
		profile += ",writes"
	}
	words := []string{shellQuote(exe), "exec", "--profile", profile}
	if secret || untrusted {
		// Offline: a secret must not leave, and code steered by
		// untrusted content must not send the workspace out.
		words = append(words, "--secret")
		for _, p := range c.Ports {
			words = append(words, "--allow-port", strconv.Itoa(p))
		}
	}
	if workspace != "" {
		words = append(words, "--workspace", shellQuote(workspace))
	}
	for _, p := range c.Revealed(lineArgvs(f)) {
		if !filepath.IsAbs(p) && workspace != "" {
			p = filepath.Join(workspace, p)
		}
		words = append(words, "--reveal", shellQuote(p))
	}
	words = append(words, "--", "bash", "-c", shellQuote(line))
	in := make(map[string]any, len(src))
	for k, v := range src {
		in[k] = v
	}
	in["command"] = strings.Join(words, " ")
	d.Input = in
	return d
}

// askUnconfined turns an allow that counted on the kernel floor into an
// ask, saying why the floor could not be had.
func askUnconfined(d agent.Decision, why string) agent.Decision {
	d.Outcome = agent.Ask
	d.Input = nil
	d.Reason = "this command runs code guardrun cannot see into, and it cannot run confined (" + why + "); run it unconfined?"
	return d
}

// underExec reports whether a line (its facts) already runs under
// guardrun exec.
func underExec(f policy.CommandFacts) bool {
	return len(f.Commands) > 0 && f.Commands[0].Program == "guardrun" && len(f.Commands[0].Args) > 0 && f.Commands[0].Args[0] == "exec"
}

// lineArgvs is the argv of each command of a line, as the policy's
// shell analysis reads them (f); nil when any is opaque (a reveal is
// for a line whose every command is known).
func lineArgvs(f policy.CommandFacts) [][]string {
	if f.Opaque != "" {
		return nil
	}
	var out [][]string
	for _, c := range f.Commands {
		if c.Program == "" {
			return nil
		}
		out = append(out, append([]string{c.Program}, c.Args...))
	}
	return out
}

// opaqueLine reports whether a shell line runs code its text does not
// show: what the policy's command analysis calls opaque (inline code, a
// computed program), an interpreter or build tool, or a program run by
// its path (./build/app). f is the line's facts, read once by confine.
func opaqueLine(f policy.CommandFacts, line string) bool {
	if f.Opaque != "" {
		return true
	}
	for _, c := range f.Commands {
		if policy.Is(c.Program, policy.Interpreter) || c.Program == "" {
			return true
		}
	}
	for _, w := range strings.Fields(line) {
		if strings.HasPrefix(w, "./") || strings.HasPrefix(w, "../") {
			return true
		}
	}
	return false
}

// sessionHolds reports whether the session has read a secret and
// whether it has read untrusted content (origins so labelled); an
// unreadable session counts as holding both.
func sessionHolds(ctx context.Context, store agent.Store, session string) (secret, untrusted bool) {
	err := store.Update(ctx, session, func(s *agent.Session) error {
		for _, o := range s.Origins {
			for _, l := range o.Labels {
				switch l {
				case "secret":
					secret = true
				case "untrusted":
					untrusted = true
				}
			}
		}
		return nil
	})
	if err != nil {
		return true, true
	}
	return secret, untrusted
}

// shellQuote quotes s for bash as one word.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:@%+,", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// logConfinement appends to the decision log what confine did with a
// call it looked at: the command it now runs, or why it runs
// unconfined.
func logConfinement(logPath string, call *Call, d agent.Decision) error {
	if len(call.Events) != 1 {
		return nil
	}
	ev := call.Events[0]
	reason, outcome := "", agent.Allow
	switch {
	case d.Outcome == agent.Ask && ev.Confined:
		// askUnconfined: the allow counted on a floor it could not have.
		reason, outcome = d.Reason, agent.Ask
	case d.Input != nil && strings.Contains(fmt.Sprint(d.Input["command"]), " exec --profile "):
		reason = "confined: " + fmt.Sprint(d.Input["command"])
	default:
		for _, w := range d.Warnings {
			if strings.Contains(w, "unconfined") {
				reason = w
			}
		}
	}
	if reason == "" {
		return nil
	}
	return appendLog(logPath, agent.Record{Time: time.Now().UTC(), Session: ev.Session, Event: agent.Kind("host:confine"), Tool: ev.Tool, Decision: outcome, Reason: reason})
}
