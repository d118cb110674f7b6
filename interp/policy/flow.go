package policy

import "strings"

// Flow is one guarded operation as the label-flow check sees it.
type Flow struct {
	// Inputs hold, per input, its labels and taint together; Inputs[0] is
	// the primary (first positional) input.
	Inputs [][]string
	// Targets are the operation's targets: "op:show", "op:cmd",
	// "op:cmd:git:status", and exe labels such as "exfil", "net:w".
	Targets []string
	// Command is the command line the operation runs, "" for none; Name
	// the operation's name (an exe's, an agent tool's). Opt-ins of
	// `defaults.except` name parts of them.
	Command, Name string
}

// matchesPrefix reports whether a rule covers a target: "*" covers all,
// otherwise the target equals the rule or extends it by ":…".
func matchesPrefix(rule, target string) bool {
	if rule == "*" {
		return true
	}
	return target == rule || (len(target) > len(rule) && target[len(rule)] == ':' && strings.HasPrefix(target, rule))
}

func anyMatches(targets []string, rule string) bool {
	for _, t := range targets {
		if matchesPrefix(rule, t) {
			return true
		}
	}
	return false
}

// specificity ranks rules: the number of ':'-separated parts, 0 for "*".
func specificity(rule string) int {
	if rule == "*" {
		return 0
	}
	return strings.Count(rule, ":") + 1
}

// bestMatch returns the most specific rule that covers some target; the
// first one wins a tie.
func bestMatch(targets, rules []string) (string, int, bool) {
	best, bestSpec, found := "", -1, false
	for _, t := range targets {
		for _, r := range rules {
			if sp := specificity(r); sp > bestSpec && matchesPrefix(r, t) {
				best, bestSpec, found = r, sp, true
			}
		}
	}
	return best, bestSpec, found
}

// inputView answers questions about the flow's inputs without building
// their union, since CheckFlow runs on every guarded operation.
type inputView struct {
	inputs [][]string
	// addUntrusted is the unlabeled-untrusted stance applied: the inputs
	// carry only system labels, so they count as untrusted.
	addUntrusted bool
	nonEmpty     bool
}

func (s *Set) viewInputs(inputs [][]string) inputView {
	v := inputView{inputs: inputs}
	allSystem := true
	for _, in := range inputs {
		for _, e := range in {
			v.nonEmpty = true
			if !isSystemLabel(e, s.stance) {
				allSystem = false
			}
		}
	}
	v.addUntrusted = s.stance == "untrusted" && v.nonEmpty && allSystem
	return v
}

// isSystemLabel reports labels that say where data came from rather than
// what it is, as mlld's resolveInputTaint.
func isSystemLabel(l, stance string) bool {
	return strings.HasPrefix(l, "src:") || strings.HasPrefix(l, "dir:") || (stance != "" && l == stance)
}

func (v *inputView) has(label string) bool {
	return (v.addUntrusted && label == "untrusted") || v.rawHas(label)
}

// rawHas reports label among the inputs themselves, without the stance.
func (v *inputView) rawHas(label string) bool {
	for _, in := range v.inputs {
		for _, e := range in {
			if e == label {
				return true
			}
		}
	}
	return false
}

// seenBefore reports whether inputs[i][j] already occurred earlier.
func (v *inputView) seenBefore(i, j int) bool {
	e := v.inputs[i][j]
	for a := 0; a <= i; a++ {
		limit := len(v.inputs[a])
		if a == i {
			limit = j
		}
		for b := 0; b < limit; b++ {
			if v.inputs[a][b] == e {
				return true
			}
		}
	}
	return false
}

// effective returns the effective input labels, for a denial.
func (v *inputView) effective() []string {
	var out []string
	for _, in := range v.inputs {
		for _, e := range in {
			if !contains(out, e) {
				out = append(out, e)
			}
		}
	}
	if v.addUntrusted && !contains(out, "untrusted") {
		out = append(out, "untrusted")
	}
	return out
}

// primaryHas reports whether the primary input carries label or a
// refinement of it.
func (v *inputView) primaryHas(label string) bool {
	if len(v.inputs) == 0 {
		return false
	}
	return anyMatches(v.inputs[0], label)
}

// expandTargets appends to buf the targets plus every risk category one of
// whose semantic labels covers a target.
func (s *Set) expandTargets(targets, buf []string) []string {
	buf = append(buf, targets...)
	for _, op := range s.ops {
		if contains(buf, op.Category) {
			continue
		}
		for _, l := range op.Labels {
			if anyMatches(targets, l) {
				buf = append(buf, op.Category)
				break
			}
		}
	}
	return buf
}

// builtinFlowRule is one built-in label-flow rule: it fires when the input
// (or, for positional rules, the primary input) and the targets violate it.
type builtinFlowRule struct {
	name, label, target, reason string
	// positional rules require the primary input to carry label.
	positional bool
}

// builtinFlows are the built-in label-flow rules. A slice, laid out by
// the compiler, not a map built at every start; builtinFlow looks a rule
// up by name.
var builtinFlows = []builtinFlowRule{
	{name: "no-secret-exfil", label: "secret", target: "exfil", reason: "Rule 'no-secret-exfil': label 'secret' cannot flow to 'exfil'"},
	{name: "no-sensitive-exfil", label: "sensitive", target: "exfil", reason: "Rule 'no-sensitive-exfil': label 'sensitive' cannot flow to 'exfil'"},
	{name: "no-send-to-unknown", label: "known", target: "exfil:send", positional: true, reason: "Rule 'no-send-to-unknown': exfil:send destination must carry 'known'"},
	{name: "no-send-to-external", label: "known:internal", target: "exfil:send", positional: true, reason: "Rule 'no-send-to-external': exfil:send destination must carry 'known:internal'"},
	{name: "no-destroy-unknown", label: "known", target: "destructive:targeted", positional: true, reason: "Rule 'no-destroy-unknown': destructive:targeted target must carry 'known'"},
	{name: "no-untrusted-destructive", label: "untrusted", target: "destructive", reason: "Rule 'no-untrusted-destructive': label 'untrusted' cannot flow to 'destructive'"},
	{name: "no-untrusted-privileged", label: "untrusted", target: "privileged", reason: "Rule 'no-untrusted-privileged': label 'untrusted' cannot flow to 'privileged'"},
	{name: "no-influenced-advice", label: "influenced", target: "advice", reason: "Rule 'no-influenced-advice': label 'influenced' cannot flow to 'advice' — use structured extraction to debias evaluative output"},
}

// builtinFlow is the built-in label-flow rule called name, if there is one.
func builtinFlow(name string) (builtinFlowRule, bool) {
	for _, r := range builtinFlows {
		if r.name == name {
			return r, true
		}
	}
	return builtinFlowRule{}, false
}

// RuleFlow returns the label and the target (risk class) of the built-in
// label-flow rule name; ok is false for an unknown rule and for the
// positional rules, which require a label rather than forbid one.
func RuleFlow(name string) (label, target string, ok bool) {
	r, ok := builtinFlow(name)
	if !ok || r.positional {
		return "", "", false
	}
	return r.label, r.target, true
}

// CheckFlow decides whether the flow's input labels may reach its targets
// under the built-in rules and the labels rules (mlld's checkLabelFlow).
// nil means allowed. Flow denials are catchable, and overridable by a
// privileged guard unless the set is locked.
func (s *Set) CheckFlow(f Flow) *Denial {
	if !s.Active() || len(f.Targets) == 0 || (len(s.rules) == 0 && len(s.labelNames) == 0) {
		return nil
	}
	in := s.viewInputs(f.Inputs)
	if !in.nonEmpty && !s.positional {
		return nil
	}
	var buf [8]string
	targets := s.expandTargets(f.Targets, buf[:0])

	for _, name := range s.rules {
		r, ok := builtinFlow(name)
		if !ok || !anyMatches(targets, r.target) {
			continue
		}
		violated := false
		if r.positional {
			violated = !in.primaryHas(r.label)
		} else {
			violated = in.has(r.label)
		}
		if violated && !s.exceptedFrom(r, f.Command, f.Name, f.Targets) {
			return s.flowDenial(&in, targets, "defaults.rules."+name, r.reason, r.label, r.target,
				s.layerNames(func(c *Config) bool { return contains(c.Rules, name) }))
		}
	}
	if !in.nonEmpty || len(s.labelNames) == 0 {
		return nil
	}

	// Each layer's labels rules are checked on their own: mlld unions the
	// lists first, which lets one layer's allow cancel another's deny.
	check := func(label string) *Denial {
		if !s.labelNames[label] {
			return nil
		}
		for _, l := range s.layers {
			rule := l.cfg.labelRule(label)
			if rule == nil || len(rule.Deny) == 0 {
				continue
			}
			deny, denySpec, ok := bestMatch(targets, rule.Deny)
			if !ok {
				continue
			}
			if _, allowSpec, ok := bestMatch(targets, rule.Allow); ok && allowSpec > denySpec {
				continue
			}
			return s.flowDenial(&in, targets, "labels."+label+".deny", "Label '"+label+"' cannot flow to '"+deny+"'", label, deny, []string{l.name})
		}
		return nil
	}
	for i, entries := range in.inputs {
		for j, e := range entries {
			if in.seenBefore(i, j) {
				continue
			}
			if d := check(e); d != nil {
				return d
			}
		}
	}
	if in.addUntrusted && !in.rawHas("untrusted") {
		if d := check("untrusted"); d != nil {
			return d
		}
	}

	// Data with only system labels under unlabeled: "untrusted" must be
	// explicitly allowed where a label names an allow list.
	if in.addUntrusted {
		for i, entries := range in.inputs {
			for j, e := range entries {
				if !s.labelNames[e] || in.seenBefore(i, j) {
					continue
				}
				for _, l := range s.layers {
					rule := l.cfg.labelRule(e)
					if rule == nil || len(rule.Allow) == 0 {
						continue
					}
					if _, _, ok := bestMatch(targets, rule.Allow); !ok {
						return s.flowDenial(&in, targets, "labels."+e+".allow", "Label '"+e+"' is not explicitly allowed for this operation", e, "", []string{l.name})
					}
				}
			}
		}
	}
	return nil
}

// labelRule returns the layer's rule for label, or nil.
func (c *Config) labelRule(label string) *LabelRule {
	for i := range c.Labels {
		if c.Labels[i].Label == label {
			return &c.Labels[i]
		}
	}
	return nil
}

func (s *Set) flowDenial(in *inputView, targets []string, rule, reason, label, matched string, names []string) *Denial {
	var ts []string
	for _, t := range targets {
		if !contains(ts, t) {
			ts = append(ts, t)
		}
	}
	return &Denial{Rule: rule, Reason: reason, Label: label, Matched: matched, Policies: names, Locked: s.locked, Inputs: in.effective(), Targets: ts}
}

// Influenced reports whether an llm exe's output is to be labelled
// influenced: a layer enables untrusted-llms-get-influenced, the exe is an
// llm (label llm or llm:…), and its inputs are untrusted (after the
// unlabeled stance).
func (s *Set) Influenced(inputs [][]string, exeLabels []string) bool {
	if !s.Active() || !s.influence || !anyMatches(exeLabels, "llm") {
		return false
	}
	in := s.viewInputs(inputs)
	return in.has("untrusted")
}
