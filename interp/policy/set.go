package policy

import (
	"fmt"
	"strings"

	"github.com/guardrun/guardrun/interp/value"
)

// layer is one Config under the name of the directive that declared it.
type layer struct {
	name string
	cfg  *Config
}

// Set is the run's composed policy: every `policy` directive and `import
// policy` adds layers, and every layer constrains. It is not safe for
// concurrent use; a Set belongs to one run.
type Set struct {
	layers []layer
	names  []string

	// Unions kept up to date by Add, so the per-operation checks do not
	// recompute them.
	rules      []string
	stance     string
	locked     bool
	positional bool
	flowRules  bool
	influence  bool
	ops        []Operation
	labelNames map[string]bool
	// guardExcept unites the layers' GuardExcept names.
	guardExcept []string
}

// Add records the layers of one policy directive under name (union(@a, @b)
// gives two layers under one name). Nil layers are skipped.
func (s *Set) Add(name string, layers ...*Config) {
	if !contains(s.names, name) {
		s.names = append(s.names, name)
	}
	for _, c := range layers {
		if c == nil {
			continue
		}
		s.layers = append(s.layers, layer{name: name, cfg: c})
		s.locked = s.locked || c.Locked
		for _, r := range c.Rules {
			if !contains(s.rules, r) {
				s.rules = append(s.rules, r)
			}
			switch r {
			case "no-send-to-unknown", "no-send-to-external", "no-destroy-unknown":
				s.positional = true
			case "untrusted-llms-get-influenced":
				s.influence = true
			}
		}
		switch {
		case c.Unlabeled == "untrusted":
			s.stance = "untrusted"
		case c.Unlabeled == "trusted" && s.stance == "":
			s.stance = "trusted"
		}
		for _, op := range c.Operations {
			s.ops = unionOperation(s.ops, op)
		}
		for _, g := range c.GuardExcept {
			if !contains(s.guardExcept, g.Name) {
				s.guardExcept = append(s.guardExcept, g.Name)
			}
		}
		for _, lr := range c.Labels {
			if s.labelNames == nil {
				s.labelNames = map[string]bool{}
			}
			s.labelNames[lr.Label] = true
		}
		if len(c.Labels) > 0 || c.Unlabeled != "" {
			s.flowRules = true
		}
	}
	if len(s.rules) > 0 {
		s.flowRules = true
	}
}

func unionOperation(ops []Operation, op Operation) []Operation {
	for i := range ops {
		if ops[i].Category == op.Category {
			for _, l := range op.Labels {
				if !contains(ops[i].Labels, l) {
					ops[i].Labels = append(ops[i].Labels, l)
				}
			}
			return ops
		}
	}
	return append(ops, Operation{Category: op.Category, Labels: append([]string(nil), op.Labels...)})
}

// HasRule reports whether a built-in rule is enabled by some layer.
func (s *Set) HasRule(name string) bool { return s != nil && contains(s.rules, name) }

// Active reports whether any policy layer is in force.
func (s *Set) Active() bool { return s != nil && len(s.layers) > 0 }

// Names returns the declared policy names (@mx.policy.activePolicies), in
// order, each once.
func (s *Set) Names() []string {
	if s == nil {
		return nil
	}
	return append([]string(nil), s.names...)
}

// Locked reports whether any layer is locked.
func (s *Set) Locked() bool { return s != nil && s.locked }

// HasFlowRules reports whether the set has label work for the interpreter:
// a built-in rule, a labels rule or an unlabeled stance.
func (s *Set) HasFlowRules() bool { return s != nil && s.flowRules }

// Timeout returns the smallest limits.timeout of the layers in
// milliseconds, 0 when none sets one.
func (s *Set) Timeout() float64 {
	if s == nil {
		return 0
	}
	t := 0.0
	for _, l := range s.layers {
		if l.cfg.Timeout > 0 && (t == 0 || l.cfg.Timeout < t) {
			t = l.cfg.Timeout
		}
	}
	return t
}

// Configs renders the merged configuration for @mx.policy.configs, as
// mlld's union merge: allow lists intersect, deny lists and labels unite,
// danger opt-ins intersect, the smallest timeout wins.
func (s *Set) Configs() *value.Object {
	out := value.NewObject()
	if s == nil || len(s.layers) == 0 {
		return out
	}
	if s.locked {
		out.Set("locked", true)
	}
	if len(s.rules) > 0 || s.stance != "" {
		d := value.NewObject()
		if len(s.rules) > 0 {
			d.Set("rules", strList(s.rules))
		}
		if s.stance != "" {
			d.Set("unlabeled", s.stance)
		}
		out.Set("defaults", d)
	}
	if a := s.mergedAllow(); a != nil {
		out.Set("allow", capsObject(a))
	}
	if d, all := s.mergedDeny(); all {
		out.Set("deny", true)
	} else if d != nil {
		out.Set("deny", capsObject(d))
	}
	if dg := s.mergedDanger(); len(dg) > 0 {
		list := make([]any, len(dg))
		for i, p := range dg {
			list[i] = "cmd:" + p
		}
		out.Set("danger", list)
	}
	if labels := s.mergedLabels(); len(labels) > 0 {
		lo := value.NewObject()
		for _, lr := range labels {
			r := value.NewObject()
			if len(lr.Deny) > 0 {
				r.Set("deny", strList(lr.Deny))
			}
			if len(lr.Allow) > 0 {
				r.Set("allow", strList(lr.Allow))
			}
			lo.Set(lr.Label, r)
		}
		out.Set("labels", lo)
	}
	if len(s.ops) > 0 {
		oo := value.NewObject()
		for _, op := range s.ops {
			oo.Set(op.Category, strList(op.Labels))
		}
		out.Set("operations", oo)
	}
	if t := s.Timeout(); t > 0 {
		lim := value.NewObject()
		lim.Set("timeout", t)
		out.Set("limits", lim)
	}
	return out
}

func (s *Set) mergedAllow() *Capabilities {
	var out *Capabilities
	for _, l := range s.layers {
		if l.cfg.Allow == nil {
			continue
		}
		out = out.intersect(*l.cfg.Allow)
	}
	return out
}

func (s *Set) mergedDeny() (*Capabilities, bool) {
	var out *Capabilities
	all := false
	for _, l := range s.layers {
		all = all || l.cfg.DenyAll
		if l.cfg.Deny == nil {
			continue
		}
		if out == nil {
			out = &Capabilities{}
		}
		for _, p := range l.cfg.Deny.Cmd {
			out.addCmd(p)
		}
		out.HasCmd = out.HasCmd || l.cfg.Deny.HasCmd
		out.Sh = out.Sh || l.cfg.Deny.Sh
		out.Network = out.Network || l.cfg.Deny.Network
		out.JS = out.JS || l.cfg.Deny.JS
	}
	return out, all
}

func (s *Set) mergedDanger() []string {
	out := append([]string(nil), s.layers[0].cfg.Danger...)
	for _, l := range s.layers[1:] {
		kept := out[:0]
		for _, p := range out {
			if contains(l.cfg.Danger, p) {
				kept = append(kept, p)
			}
		}
		out = kept
	}
	return out
}

func (s *Set) mergedLabels() []LabelRule {
	var out []LabelRule
	for _, l := range s.layers {
		for _, lr := range l.cfg.Labels {
			i := 0
			for i < len(out) && out[i].Label != lr.Label {
				i++
			}
			if i == len(out) {
				out = append(out, LabelRule{Label: lr.Label})
			}
			for _, d := range lr.Deny {
				if !contains(out[i].Deny, d) {
					out[i].Deny = append(out[i].Deny, d)
				}
			}
			for _, a := range lr.Allow {
				if !contains(out[i].Allow, a) {
					out[i].Allow = append(out[i].Allow, a)
				}
			}
		}
	}
	return out
}

// capsObject renders a capability list the way mlld's union shows it.
func capsObject(c *Capabilities) *value.Object {
	o := value.NewObject()
	if c.HasCmd {
		if c.allCmd() {
			o.Set("cmd", []any{"*"})
		} else {
			o.Set("cmd", strList(c.Cmd))
		}
	}
	if c.Sh {
		o.Set("sh", true)
	}
	if c.Network {
		o.Set("network", true)
	}
	if c.JS {
		o.Set("js", true)
	}
	return o
}

func strList(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// layerNames returns the distinct names of the layers keep selects.
func (s *Set) layerNames(keep func(*Config) bool) []string {
	var out []string
	for _, l := range s.layers {
		if keep(l.cfg) && !contains(out, l.name) {
			out = append(out, l.name)
		}
	}
	return out
}

// dangerRefusers are the policies that refuse command v, which matches
// danger list entry pat: with no opt-in anywhere, every policy; once some
// policy opts in, the policies that have a say over commands (an allow
// or deny list) and do not opt in themselves. A policy that only sets
// label rules or only opts in to other danger entries does not refuse
// what another policy of the same set opted in to: so an opt-in pasted
// into a policy file beside other policies works, while a command allow
// or deny list still has to name its own opt-ins.
func (s *Set) dangerRefusers(v cmdView, pat string) []string {
	some := false
	for _, l := range s.layers {
		if optedIn(l.cfg.Danger, v, pat) {
			some = true
			break
		}
	}
	if !some {
		return s.layerNames(func(*Config) bool { return true })
	}
	return s.layerNames(func(cfg *Config) bool {
		return (cfg.Allow != nil || cfg.Deny != nil || cfg.DenyAll) && !optedIn(cfg.Danger, v, pat)
	})
}

// CheckCommand decides whether shell text may run: a command line with
// nothing interpolated, or the body of an sh block. Every simple command
// in it must pass; the first that does not is reported. Capability
// denials are never catchable.
func (s *Set) CheckCommand(text string) *Denial {
	return s.CheckCommandParts([]CommandPart{{Text: text}})
}

// CheckCommandParts is CheckCommand for a command line with interpolated
// values, which the shell receives as data: each value is part of exactly
// one word, so the check sees the programs and arguments the shell will
// run, never what the value's text would parse as.
func (s *Set) CheckCommandParts(parts []CommandPart) *Denial {
	if !s.Active() {
		return nil
	}
	text := joinParts(parts)
	if d := s.denyAll(strings.TrimSpace(text)); d != nil {
		return d
	}
	cmds, ok := splitParts(parts)
	if !ok {
		return &Denial{Capability: true, Rule: "capabilities", Reason: "Command text holds a NUL byte and cannot be checked by policy",
			Policies: s.layerNames(func(*Config) bool { return true }), Command: text}
	}
	for i := range cmds {
		if d := s.checkSimple(&cmds[i]); d != nil {
			return d
		}
	}
	// The splitter's reading is only trusted where bash reads the line
	// the same way.
	if why := crossCheck(parts, cmds); why != "" {
		return &Denial{Capability: true, Rule: "capabilities", Reason: "Command cannot be checked by policy: " + why,
			Policies: s.layerNames(func(*Config) bool { return true }), Command: text}
	}
	return nil
}

// joinParts is the command line with its values written in: what a
// denial shows.
func joinParts(parts []CommandPart) string {
	if len(parts) == 1 {
		return parts[0].Text
	}
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String()
}

func (s *Set) denyAll(command string) *Denial {
	names := s.layerNames(func(c *Config) bool { return c.DenyAll })
	if len(names) == 0 {
		return nil
	}
	return &Denial{Capability: true, Rule: "deny", Reason: "All operations denied by policy", Matched: "*", Policies: names, Command: command}
}

func (s *Set) checkSimple(c *simpleCmd) *Denial {
	text := strings.Join(c.raw, " ")
	capDenial := func(rule, reason, matched string, names []string) *Denial {
		return &Denial{Capability: true, Rule: rule, Reason: reason, Matched: matched, Policies: names, Command: text}
	}
	if c.unchecked != "" {
		return capDenial("capabilities", c.unchecked, "", s.layerNames(func(*Config) bool { return true }))
	}

	// The wrapped command (env rm …, timeout 5 rm …, find -exec rm …) is
	// what runs, so deny rules see it as well as the wrapper. A computed
	// command name is left to the opaque-code check below.
	for _, inv := range c.invs {
		v := c.view(inv)
		if v.dyn[0] {
			continue
		}
		danger := dangerTokens()
		for i, pat := range defaultDanger {
			if !matchesTokens(v, danger[i], true) {
				continue
			}
			names := s.dangerRefusers(v, pat)
			if len(names) > 0 {
				return capDenial("capabilities.danger", dangerReason(c, inv, pat), pat, names)
			}
		}
	}
	for _, inv := range c.invs {
		v := c.view(inv)
		if v.dyn[0] {
			continue
		}
		for _, l := range s.layers {
			if l.cfg.Deny == nil || !l.cfg.Deny.HasCmd {
				continue
			}
			for _, pat := range l.cfg.Deny.Cmd {
				if matchesCommand(v, pat, true) {
					return capDenial("capabilities.deny.cmd", "Command '"+v.tokens[0]+"' denied by policy", pat, []string{l.name})
				}
			}
		}
	}
	if shell := firstOf(c, func(p string) bool { return Is(p, Shell) }); shell != "" {
		if names := s.layerNames(func(cfg *Config) bool { return cfg.Deny != nil && cfg.Deny.Sh }); len(names) > 0 {
			return capDenial("capabilities.deny.sh", "Shell access denied by policy", shell, names)
		}
	}
	for _, l := range s.layers {
		a := l.cfg.Allow
		if a == nil || a.allCmd() {
			continue
		}
		if _, ok := matchesAny(c.tokens, a.Cmd); !ok {
			return capDenial("capabilities.allow.cmd", "Command '"+c.tokens[0]+"' denied by policy", c.tokens[0], []string{l.name})
		}
	}
	if d := s.checkOpaque(c, capDenial); d != nil {
		return d
	}
	if tool := firstOf(c, func(p string) bool { return Is(p, Network|Remote) }); tool != "" {
		if names := s.layerNames(func(cfg *Config) bool { return cfg.Deny != nil && cfg.Deny.Network }); len(names) > 0 {
			return capDenial("capabilities.deny.network", "Network access denied by policy", tool, names)
		}
	}
	return nil
}

// checkOpaque refuses a command that runs code the policy cannot read (a
// computed command name, python -c, an awk program calling system, …):
// it could run anything, including what a deny list or the danger list
// refuses. A layer with a deny list refuses it outright; otherwise it is
// dangerous, and every layer must opt in (danger: ["cmd:awk:*"]).
func (s *Set) checkOpaque(c *simpleCmd, capDenial func(rule, reason, matched string, names []string) *Denial) *Denial {
	for _, inv := range c.invs {
		why := opaqueCode(c, inv)
		if why == "" {
			continue
		}
		name := c.raw[inv.start]
		reason := "Command '" + name + "' cannot be checked by policy: " + why +
			"; to run such commands, opt in: policy @optIn = { danger: [\"cmd:" + strings.ToLower(c.tokens[inv.start]) + ":*\"] }"
		if names := s.layerNames(func(cfg *Config) bool { return cfg.Deny != nil && len(cfg.Deny.Cmd) > 0 }); len(names) > 0 {
			return capDenial("capabilities.deny.cmd", reason, name, names)
		}
		if names := s.layerNames(func(cfg *Config) bool { return cfg.Deny != nil && cfg.Deny.Sh }); len(names) > 0 {
			return capDenial("capabilities.deny.sh", reason, name, names)
		}
		optsIn := func(cfg *Config) bool {
			for _, p := range cfg.Danger {
				if matchesCommand(c.view(inv), p, false) {
					return true
				}
			}
			return false
		}
		// As for the danger list (dangerRefusers): once some policy opts
		// in, only policies with an allow or deny list of their own must.
		some := false
		for _, l := range s.layers {
			some = some || optsIn(l.cfg)
		}
		names := s.layerNames(func(cfg *Config) bool {
			return !some || (cfg.Allow != nil || cfg.Deny != nil || cfg.DenyAll) && !optsIn(cfg)
		})
		if len(names) > 0 {
			return capDenial("capabilities.danger", reason, name, names)
		}
	}
	return nil
}

// optedIn reports whether opt-ins cover danger pattern pat for command
// v: they name the pattern itself, or a pattern the command matches.
func optedIn(optIns []string, v cmdView, pat string) bool {
	if contains(optIns, pat) {
		return true
	}
	if n, ok := normalizeCmdEntry(pat); ok && contains(optIns, n) {
		// Opt-ins are stored normalized (flags lower-cased: -T is -t).
		return true
	}
	for _, p := range optIns {
		if matchesCommand(v, p, false) {
			return true
		}
	}
	return false
}

// firstOf returns the first command c runs (itself or wrapped) whose name
// is in set.
func firstOf(c *simpleCmd, set func(string) bool) string {
	for _, inv := range c.invs {
		if t := c.tokens[inv.start]; set(t) && !c.dyn[inv.start] {
			return t
		}
	}
	return ""
}

// CheckCode decides whether a code block in lang may run: "js",
// "javascript", "node", "sh" or "bash"; other languages are not governed
// by capabilities and pass unless everything is denied.
func (s *Set) CheckCode(lang string) *Denial {
	if !s.Active() {
		return nil
	}
	lang = strings.ToLower(strings.TrimSpace(lang))
	if d := s.denyAll(""); d != nil {
		return d
	}
	capDenial := func(rule, reason string, names []string) *Denial {
		return &Denial{Capability: true, Rule: rule, Reason: reason, Matched: lang, Policies: names}
	}
	switch lang {
	case "js", "javascript", "node":
		if names := s.layerNames(func(c *Config) bool { return c.Deny != nil && c.Deny.JS }); len(names) > 0 {
			return capDenial("capabilities.deny.js", "JavaScript access denied by policy", names)
		}
	case "sh", "bash":
		if names := s.layerNames(func(c *Config) bool { return c.Deny != nil && c.Deny.Sh }); len(names) > 0 {
			return capDenial("capabilities.deny.sh", "Shell access denied by policy", names)
		}
		// A shell block would bypass the command allow list, so an allow
		// list must name sh for one to run (mlld does not check this).
		if names := s.layerNames(func(c *Config) bool { return c.Allow != nil && !c.Allow.Sh }); len(names) > 0 {
			return capDenial("capabilities.allow.sh", "Shell access denied by policy", names)
		}
	}
	return nil
}

// maxQuoted bounds the command text a denial quotes.
const maxQuoted = 80

// dangerReason says which part of a command matched which entry of the
// danger list, and the opt-in that allows it: the policy line to add
// (in the policy that refused it: for an agent, the user's policy).
func dangerReason(c *simpleCmd, inv invocation, pat string) string {
	part := strings.Join(c.raw[inv.start:inv.end], " ")
	if len(part) > maxQuoted {
		part = part[:maxQuoted] + "…"
	}
	return fmt.Sprintf("Dangerous capability requires allow.danger: `%s` matches the danger list entry %s; to allow it, opt in: policy @optIn = { danger: [%q] }",
		part, pat, "cmd:"+pat)
}
