package hook

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/guardrun/guardrun/agent"
	"github.com/guardrun/guardrun/interp/policy"
	"github.com/guardrun/guardrun/sandbox"
)

// ConfineEnv, set to 1, turns on --confine.
const ConfineEnv = "GUARDRUN_CONFINE"

// confineHosts are the adapters whose host runs a rewritten shell
// command, by the event that carries it (docs/agents.md): Claude Code's
// and Codex's PreToolUse updatedInput, Gemini CLI's BeforeTool
// tool_input. Cursor's shell event (beforeShellExecution) takes no
// rewritten command.
var confineHosts = map[string]string{"claude": "PreToolUse", "codex": "PreToolUse", "gemini": "BeforeTool"}

// interpreters run code from a file or their standard input that the
// command line does not show: a line that runs one is confined.
var interpreters = map[string]bool{"python": true, "python3": true, "python2": true, "node": true, "deno": true, "bun": true,
	"ruby": true, "perl": true, "php": true, "lua": true, "bash": true, "sh": true, "zsh": true, "dash": true,
	"make": true, "npm": true, "npx": true, "yarn": true, "pnpm": true, "go": true, "cargo": true, "java": true, "pytest": true, "tsx": true, "ts-node": true}

// confine is the hook's answer for a shell call it cannot see into
// that the policy allowed: the same line, run by bash under `guardrun
// exec` with the session's profile (starter, plus offline once the
// session holds a secret). It changes nothing for another call, a
// decision that is not a plain allow, or a host that cannot take a
// rewritten input. Where the kernel cannot confine, the decision stays
// as it is and says "unconfined" (a warning, logged): the policy's
// decision without the floor, never a silent weakening.
func confine(ctx context.Context, hostName string, call *Call, d agent.Decision, store agent.Store, workspace string) agent.Decision {
	if confineHosts[hostName] == "" || call.Native != confineHosts[hostName] || len(call.Events) != 1 || d.Outcome != agent.Allow || d.Input != nil {
		return d
	}
	ev := call.Events[0]
	line, ok := ev.Input["command"].(string)
	if ev.Kind != agent.ToolBefore || !ok || !opaqueLine(line) {
		return d
	}
	if _, err := sandbox.ABI(); err != nil {
		d.Warnings = append(d.Warnings, "guardrun exec: "+err.Error())
		return d
	}
	exe, err := guardrunBinary()
	if err != nil {
		d.Warnings = append(d.Warnings, "unconfined: "+err.Error())
		return d
	}
	words := []string{shellQuote(exe), "exec", "--profile", sandbox.Starter}
	if holdsSecret(ctx, store, ev.Session) {
		words = append(words, "--secret")
	}
	if workspace != "" {
		words = append(words, "--workspace", shellQuote(workspace))
	}
	words = append(words, "--", "bash", "-c", shellQuote(line))
	in := make(map[string]any, len(ev.Input))
	for k, v := range ev.Input {
		in[k] = v
	}
	in["command"] = strings.Join(words, " ")
	d.Input = in
	return d
}

// opaqueLine reports whether a shell line runs code its text does not
// show: what the policy's command analysis calls opaque (inline code, a
// computed program), an interpreter or build tool, or a program run by
// its path (./build/app). A line already under guardrun exec is not.
func opaqueLine(line string) bool {
	f := policy.CommandLineFacts(line)
	if len(f.Commands) > 0 && f.Commands[0].Program == "guardrun" && len(f.Commands[0].Args) > 0 && f.Commands[0].Args[0] == "exec" {
		return false
	}
	if f.Opaque != "" {
		return true
	}
	for _, c := range f.Commands {
		if interpreters[c.Program] || c.Program == "" {
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

// holdsSecret reports whether the session has read a secret (an origin
// labelled secret); an unreadable session counts as holding one.
func holdsSecret(ctx context.Context, store agent.Store, session string) bool {
	held := false
	err := store.Update(ctx, session, func(s *agent.Session) error {
		for _, o := range s.Origins {
			for _, l := range o.Labels {
				if l == "secret" {
					held = true
				}
			}
		}
		return nil
	})
	return held || err != nil
}

// guardrunBinary is this program: guardrun and guardrun-hook both have
// the exec command (guardrun-hook starts faster).
func guardrunBinary() (string, error) {
	return os.Executable()
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
	reason := ""
	switch {
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
	return appendLog(logPath, agent.Record{Time: time.Now().UTC(), Session: ev.Session, Event: agent.Kind("host:confine"), Tool: ev.Tool, Decision: agent.Allow, Reason: reason})
}
