package agent

import (
	"path/filepath"
	"strconv"
	"strings"

	"github.com/guardrun/guardrun"
	"github.com/guardrun/guardrun/interp/policy"
)

// A denial says what matched, what decided and how to lift it: the part
// of the call (the command line, the file, the URL), the guard or rule
// and, for a label rule, where the label came from, then the policy line
// that opts in to it, to paste into the policy file that decided (the
// layer where the opt-in works: a later policy can never lift an
// earlier one's denial):
//
//	recursive or forced delete of … (`rm -rf /opt`; guard @deleteRoot). To allow it, add to policy.guard: policy @optIn = { guards: { except: ['@deleteRoot'] } }
//
// A capability denial names its own opt-in (interp/policy); a failure
// (class error) has none: it is refused because it cannot be decided.

// optInLead starts the sentence naming a denial's opt-in.
const optInLead = " To allow it, add to "

// OptInSentence is the sentence a denial's reason ends with when it
// names an opt-in (Denial.OptIn), "" when it names none.
func (dn *Denial) OptInSentence() string {
	if dn == nil || dn.OptIn == "" {
		return ""
	}
	return optInLead + dn.OptInFile + ": " + dn.OptIn
}

// Source says where a denial's labels came from: "secret from .env
// (Read, event 2), Bash's input (event 3)" — the file an output came
// from when it came from one (Origin.File; a path, never what the file
// holds), else the tool or event. At most three sources are named; ""
// when the denial has no labels or no lineage.
func (dn *Denial) Source() string {
	if dn == nil || len(dn.Labels) == 0 || len(dn.Lineage) == 0 {
		return ""
	}
	var from []string
	for i, o := range dn.Lineage {
		if i == 3 {
			from = append(from, "…")
			break
		}
		what := string(o.Event)
		if o.Tool != "" {
			what = o.Tool
		}
		// Each source is one concatenation.
		seq := strconv.Itoa(o.Seq)
		why := ""
		if o.Why != "" {
			why = ": " + o.Why
		}
		switch {
		case o.Event == ToolBefore:
			from = append(from, what+"'s input (event "+seq+")"+why)
		case o.File != "":
			from = append(from, o.File+" ("+what+", event "+seq+")"+why)
		default:
			from = append(from, what+" (event "+seq+")"+why)
		}
	}
	return strings.Join(dn.Labels, ", ") + " from " + strings.Join(from, ", ")
}

// callPart is the part of a call a denial quotes and the opt-in of a
// label rule names.
type callPart struct {
	// quote is what the reason shows: `command line`, a path, a URL.
	quote string
	// command is a command tool's command line, tool the tool's name,
	// labels the operation's own labels (the tool's and the engine's
	// marks, not the risk classes they fall in).
	command, tool string
	// toolLabels and facts give the operation's own labels (opLabels),
	// made only for the denial of a label rule, the one that needs them;
	// call is false for a part of no tool call. facts is a copy, not a
	// pointer: a pointer would move the caller's facts to the heap.
	call       bool
	toolLabels []string
	facts      callFacts
}

// opLabels are the operation's own labels: op:exe, the tool's, and the
// engine's marks (callFacts.mark) of the call's facts.
func (p *callPart) opLabels() []string {
	if !p.call {
		return nil
	}
	return p.facts.markLabels(append([]string{"op:exe"}, p.toolLabels...))
}

// maxPartQuote bounds the command line a denial quotes.
const maxPartQuote = 80

// partOf is the part of tool call ev (command line, as the guards saw it,
// for a command tool) that a denial quotes.
func partOf(t toolDef, ev Event, in map[string]any, line string, facts callFacts) callPart {
	p := callPart{tool: ev.Tool, call: true, toolLabels: t.labels, facts: facts}
	if contains(t.labels, "cmd") {
		p.command = line
		q := line
		if len(q) > maxPartQuote {
			cut := maxPartQuote
			for cut > 0 && !utf8Start(q[cut]) {
				cut--
			}
			q = q[:cut] + "…"
		}
		p.quote = "`" + q + "`"
		return p
	}
	for _, f := range append(append([]string(nil), toolPathFields...), "url", "query") {
		if s, ok := in[f].(string); ok && s != "" {
			p.quote = s
			return p
		}
	}
	return p
}

// explain completes a denial: the part of the call that matched, the
// guard or rule and the labels' lineage, then the opt-in (Denial.OptIn)
// that lifts it in the policy that decided. protectedKey is what a
// protected-path refusal names (ClassProtected).
func (e *Engine) explain(d *Decision, v verdict, part callPart, protectedKey string) {
	dn := d.Denial
	if d.Outcome != Deny || dn == nil || dn.Class == ClassError || dn.Class == ClassHook || dn.OptIn != "" {
		return
	}
	l := e.layerNamed(v.policy)
	if dn.Class == ClassProtected {
		l = e.layers[0]
	}
	reason := d.Reason
	optIn := ""
	switch dn.Class {
	case ClassGuard:
		optIn = l.guardOptIn(dn.Guard)
	case ClassPolicy:
		if l != nil {
			if rule, parts := l.flowOptIn(dn.Rule, part); rule != "" {
				if len(parts) == 0 {
					parts = []string{"*"}
				}
				optIn = policy.OptInLine(rule, parts)
			}
		}
	case ClassCapability:
		// The capability check named the part and its opt-in itself
		// ("…; to allow it, opt in: policy @optIn = …").
		if i := strings.Index(reason, "policy @optIn ="); i >= 0 {
			optIn = reason[i:]
			reason = reason[:i]
			if j := strings.LastIndex(reason, "; "); j >= 0 {
				reason = reason[:j]
			}
		}
		part.quote = ""
	case ClassProtected:
		// The refusal names the path or command itself.
		part.quote = ""
		if protectedKey != "" {
			optIn = policy.ProtectedOptInLine(protectedKey)
		}
	}
	var who []string
	if part.quote != "" && !strings.Contains(reason, part.quote) {
		who = append(who, part.quote)
	}
	switch {
	case dn.Guard != "":
		who = append(who, "guard "+dn.Guard)
	case dn.Rule != "":
		who = append(who, "rule "+dn.Rule)
	}
	if dn.Class == ClassPolicy {
		if src := dn.Source(); src != "" {
			// A label rule's denial says where the label came from.
			who = append(who, src)
		}
	}
	reason = strings.TrimRight(reason, " .;")
	if len(who) > 0 {
		reason += " (" + strings.Join(who, "; ") + ")"
	}
	if optIn != "" && l != nil {
		dn.OptIn, dn.OptInFile = optIn, l.displayName(l == e.layers[0])
		if dn.Class == ClassProtected && e.cfg.Policies[0].Workspace {
			// No policy of the user's is loaded: the opt-in goes in one.
			dn.OptInFile = "your own policy (guardrun init writes it)"
		}
		reason += "." + dn.OptInSentence()
	}
	d.Reason, dn.Reason = reason, reason
}

// askOptIn names, on an ask the host is left to answer, the opt-in that
// turns its guard off (Decision.AskOptIn), without changing the
// question: a run nobody watches answers the ask with a denial, which
// names it.
func (e *Engine) askOptIn(d *Decision, v verdict) {
	if d.Outcome != Ask {
		return
	}
	l := e.layerNamed(v.policy)
	if d.AskOptIn = l.guardOptIn(d.Asker); d.AskOptIn != "" {
		d.AskOptInFile = l.displayName(l == e.layers[0])
	}
}

// guardOptIn is the opt-in that turns off the layer's guard ("@name"),
// "" when guards.except cannot (l nil, an unnamed or privileged guard).
// The loaded policy is read, never written: no lock.
func (l *layer) guardOptIn(guard string) string {
	name, ok := strings.CutPrefix(guard, "@")
	if !ok || l == nil || !l.m.GuardSkippable(name) {
		return ""
	}
	return policy.GuardOptInLine(guard)
}

// flowOptIn is the layer's opt-in of label-flow rule rule (Denial.Rule)
// for part (policy.Set.FlowOptIn).
func (l *layer) flowOptIn(rule string, part callPart) (string, []string) {
	return l.m.Policy().FlowOptIn(rule, part.command, part.tool, part.opLabels())
}

// layerNamed is the loaded policy called name, nil when none is.
func (e *Engine) layerNamed(name string) *layer {
	for _, l := range e.layers {
		if l.name == name {
			return l
		}
	}
	return nil
}

// displayName is how a denial names the policy file its opt-in goes in:
// the user's by its file name, a later one by its directory and name
// (.guardrun/policy.guard).
func (l *layer) displayName(first bool) string {
	if first {
		return filepath.Base(l.name)
	}
	return filepath.Join(filepath.Base(filepath.Dir(l.name)), filepath.Base(l.name))
}

// protectedExcepts reads the protected paths and commands policy p (the
// i-th loaded) lets the agent write or run: only the user's own policy,
// the first, may; a workspace policy can restrict, never lift.
func protectedExcepts(i int, p Policy, m *guardrun.Machine) ([]string, error) {
	ex := m.Policy().ProtectedExcept()
	if len(ex) == 0 {
		return nil, nil
	}
	if i > 0 || p.Workspace {
		return nil, &guardrun.Error{Name: guardrun.PolicyConfigErrorName, Pos: ex[0].Pos,
			Message: "invalid protected.except: only your own policy may let the agent write what guardrun protects; a workspace policy can restrict, never lift",
			Hint:    "move it to your own policy (~/.config/guardrun/policy.guard), or remove it"}
	}
	out := make([]string, len(ex))
	for i, x := range ex {
		out[i] = x.Name
	}
	return out, nil
}
