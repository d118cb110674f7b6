package policy

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/guardrun/guardrun/ast"
	"github.com/guardrun/guardrun/interp/value"
)

// Opt-ins to one rule each. Besides `danger` (an entry of the danger
// list), a policy object names what it turns off, one rule at a time:
//
//	policy @optIn = { guards: { except: ["@deleteRoot"] } }
//	policy @optIn = { defaults: { except: { "no-secret-exfil": ["cmd:curl"] } } }
//	policy @optIn = { protected: { except: ["/home/u/.claude/settings*.json"] } }
//
// Each works in the run that declares it and nowhere else: a policy file
// is one run, so a workspace policy's opt-ins turn off its own guards and
// rules, never the user's (the agent engine combines runs restrict-never-
// lift). `protected` is read by the agent engine, from the user's policy
// only.

// Except is one entry of an opt-in list with the position that wrote it.
type Except struct {
	Name string
	Pos  ast.Pos
}

// RuleExcept relaxes one built-in label-flow rule for the parts of an
// operation it names: "cmd:PATTERN" a command of a command line (the
// danger list's patterns: "cmd:curl", "cmd:git:push"), "@Name" an
// operation (an agent tool) by name, "*" every operation.
type RuleExcept struct {
	Rule  string
	Parts []string
	Pos   ast.Pos
}

var (
	guardsKeys    = []string{"except"}
	exceptKeys    = []string{"except"}
	guardsUnsupp  = []string{"only"}
	exceptHint    = `write guards: { except: ["@guardName"] }`
	protectedHint = `write protected: { except: ["/path/as/the/denial/names/it"] }`
)

// guards parses `guards: { except: ["@name", …] }`: the guards of this
// run that do not decide any operation. The interpreter checks that each
// names a guard the run has (a misspelt name must not leave a guard on
// that its author believes is off, nor the reverse).
func (ps *parser) guards(cfg *Config, v any, p keyPath) error {
	o, err := ps.object(v, p, exceptHint)
	if err != nil {
		return err
	}
	for _, k := range o.Keys {
		kv, kp := o.Values[k], p.key(k)
		if k != "except" {
			if contains(guardsUnsupp, k) {
				return ps.fail(kp, "a policy turns guards off one by one: "+exceptHint, "policy key '%s' is not supported by guardrun", kp)
			}
			return ps.unknownKey(kp, k, guardsKeys, nil)
		}
		arr, ok := kv.([]any)
		if !ok {
			return ps.fail(kp, exceptHint, "policy key '%s' must be an array of guard names, got %s", kp, value.KindName(kv))
		}
		for i, e := range arr {
			ep := kp.at(i)
			s, ok := e.(string)
			name := strings.TrimSpace(s)
			if !ok || !strings.HasPrefix(name, "@") || len(name) < 2 {
				return ps.fail(ep, `name guards with their @: except: ["@deleteRoot"]`, "policy key '%s' must be a guard name starting with @, got %s", ep, describe(e))
			}
			cfg.GuardExcept = append(cfg.GuardExcept, Except{Name: name[1:], Pos: ps.loc(ep.parts())})
		}
	}
	return nil
}

// ruleExcepts parses `defaults.except`: { "rule": ["part", …] }.
func (ps *parser) ruleExcepts(cfg *Config, v any, p keyPath) error {
	hint := `write except: { "no-secret-exfil": ["cmd:curl"] }`
	o, err := ps.object(v, p, hint)
	if err != nil {
		return err
	}
	for _, rule := range o.Keys {
		rp := p.key(rule)
		if _, ok := builtinFlow(rule); !ok {
			var flows []string
			for _, r := range builtinFlows {
				flows = append(flows, r.name)
			}
			return ps.fail(rp, suggest(rule, flows, "label-flow rules"), "unknown label-flow rule '%s' in %s", rule, p)
		}
		arr, ok := o.Values[rule].([]any)
		if !ok {
			return ps.fail(rp, hint, "policy key '%s' must be an array of parts (\"cmd:curl\", \"@WebFetch\", \"*\"), got %s", rp, value.KindName(o.Values[rule]))
		}
		re := RuleExcept{Rule: rule, Pos: ps.loc(rp.parts())}
		for i, e := range arr {
			ep := rp.at(i)
			s, _ := e.(string)
			part := strings.TrimSpace(s)
			switch {
			case part == "*":
			case isCmdEntry(strings.ToLower(part)):
				pat, ok := normalizeCmdEntry(part)
				if !ok {
					return ps.fail(ep, hint, "policy key '%s' has an empty command pattern", ep)
				}
				part = "cmd:" + pat
			case strings.HasPrefix(part, "@") && len(part) > 1:
			default:
				return ps.fail(ep, `a part is "cmd:PROGRAM" (a command), "@Tool" (a tool or exe by name) or "*" (every operation)`,
					"policy key '%s' must name a part of an operation, got %s", ep, describe(e))
			}
			if !contains(re.Parts, part) {
				re.Parts = append(re.Parts, part)
			}
		}
		cfg.RuleExcept = append(cfg.RuleExcept, re)
	}
	return nil
}

// protected parses `protected: { except: [...] }`: the protected paths
// (as the agent engine's refusal names them) and guardrun commands
// ("guardrun trust") the agent may write or run.
func (ps *parser) protected(cfg *Config, v any, p keyPath) error {
	o, err := ps.object(v, p, protectedHint)
	if err != nil {
		return err
	}
	for _, k := range o.Keys {
		kv, kp := o.Values[k], p.key(k)
		if k != "except" {
			return ps.unknownKey(kp, k, exceptKeys, nil)
		}
		list, err := ps.stringList(kv, kp, protectedHint)
		if err != nil {
			return err
		}
		for i, s := range list {
			cfg.ProtectedExcept = append(cfg.ProtectedExcept, Except{Name: s, Pos: ps.loc(kp.at(i).parts())})
		}
	}
	return nil
}

// GuardExcept returns the guards (names without '@') the run's policies
// turn off, each once.
func (s *Set) GuardExcept() []string {
	if s == nil {
		return nil
	}
	return s.guardExcept
}

// ProtectedExcept returns the protected paths and commands the run's
// policies let an agent write or run, with where each was written.
func (s *Set) ProtectedExcept() []Except {
	if s == nil {
		return nil
	}
	var out []Except
	for _, l := range s.layers {
		out = append(out, l.cfg.ProtectedExcept...)
	}
	return out
}

// ruleExceptParts is every part the run's policies except from rule.
func (s *Set) ruleExceptParts(rule string) []string {
	var out []string
	for _, l := range s.layers {
		for _, re := range l.cfg.RuleExcept {
			if re.Rule == rule {
				out = append(out, re.Parts...)
			}
		}
	}
	return out
}

// exceptedFrom reports whether an operation (running command, called
// name, with targets) is excepted from built-in rule r by the parts the
// policies list for it: "*"; for an operation running a command line, every command of it
// that on its own falls under the rule (its operation labels, and
// net:w when it reaches the network, fall in the rule's risk class)
// matches a "cmd:" part, at least one does, and nothing else of the
// operation falls under the rule (a /dev/tcp redirect, a label of the
// tool itself); for any other operation, a part "@Name" naming it.
func (s *Set) exceptedFrom(r builtinFlowRule, command, name string, targets []string) bool {
	parts := s.ruleExceptParts(r.name)
	if len(parts) == 0 {
		return false
	}
	if contains(parts, "*") {
		return true
	}
	if command == "" {
		return name != "" && contains(parts, "@"+name)
	}
	sends, ok := s.classCommands(r, command, targets)
	if !ok || len(sends) == 0 {
		return false
	}
	for _, v := range sends {
		matched := false
		for _, p := range parts {
			pat, isCmd := strings.CutPrefix(p, "cmd:")
			if isCmd && !strings.HasSuffix(pat, "*") {
				// "cmd:git:push" is every git push, whatever follows.
				pat += ":*"
			}
			if isCmd && matchesCommand(v, pat, false) {
				matched = true
				break
			}
		}
		if !matched {
			return false
		}
	}
	return true
}

// classCommands returns the commands of a command line that on their
// own fall under rule r; ok is false when something the line does falls
// under it that no command accounts for (or the line cannot be read, or
// a command's name is only known when it runs).
func (s *Set) classCommands(r builtinFlowRule, command string, targets []string) (sends []cmdView, ok bool) {
	// A copy: the parse keeps parts of the line, and the line is the
	// caller's (a label-flow check's, which keeps its lists on the stack).
	sl := parseShellLine(strings.Clone(command))
	if sl.unchecked != "" {
		return nil, false
	}
	netByCommand := false
	for i := range sl.cmds {
		c := &sl.cmds[i]
		for _, inv := range c.invs {
			v := c.view(inv)
			if v.dyn[0] {
				return nil, false
			}
			own := simpleOpLabels(c, inv)
			if invReachesNetwork(c, inv) {
				own = append(own, "net:w")
				netByCommand = true
			}
			if anyMatches(s.expandTargets(own, nil), r.target) {
				sends = append(sends, v)
			}
		}
	}
	for _, rd := range sl.redirs {
		if devNet(rd.word) {
			return nil, false
		}
	}
	for _, w := range sl.words {
		if devNet(w) {
			return nil, false
		}
	}
	// What the operation carries besides its commands' labels: the
	// tool's own labels, and net:w, which the commands that reach the
	// network account for.
	var shared []string
	for _, t := range targets {
		if strings.HasPrefix(t, "op:cmd") || (t == "net:w" && netByCommand) {
			continue
		}
		shared = append(shared, t)
	}
	if anyMatches(s.expandTargets(shared, nil), r.target) {
		return nil, false
	}
	return sends, true
}

// invReachesNetwork reports whether one invocation reaches the network
// on its own, as CommandLineFacts decides it for the line.
func invReachesNetwork(c *simpleCmd, inv invocation) bool {
	var f CommandFacts
	fa := &factsBuilder{f: &f}
	fa.command(c, inv)
	return f.Network
}

// FlowOptIn returns the parts that, listed in `defaults.except` for
// the built-in rule of a flow denial (Denial.Rule
// "defaults.rules.NAME"), lift it for the operation that runs command
// (its command line, "" for none) or is called name, with targets its
// labels (the tool's, the operation's: not the risk classes they fall
// in): "cmd:PROGRAM" (with a git-like program's subcommand) for each
// command of the line that falls under the rule, else "@Name". nil when
// nothing narrower than "*" would; rule is "" when denialRule is not a
// built-in rule's.
func (s *Set) FlowOptIn(denialRule, command, name string, targets []string) (rule string, parts []string) {
	rule, ok := strings.CutPrefix(denialRule, "defaults.rules.")
	if !ok {
		return "", nil
	}
	r, ok := builtinFlow(rule)
	if !ok {
		return "", nil
	}
	if command == "" {
		if name == "" {
			return rule, nil
		}
		return rule, []string{"@" + name}
	}
	sends, ok := s.classCommands(r, command, targets)
	if !ok {
		return rule, nil
	}
	for _, v := range sends {
		p := "cmd:" + v.tokens[0]
		if Is(v.tokens[0], Subcommand) && len(v.tokens) > 1 && !v.dyn[1] && !strings.HasPrefix(v.tokens[1], "-") {
			p += ":" + v.tokens[1]
		}
		if !contains(parts, p) {
			parts = append(parts, p)
		}
	}
	return rule, parts
}

// GuardOptInLine renders a policy line turning off guard ("@name").
func GuardOptInLine(guard string) string {
	return "policy @optIn = { guards: { except: [" + Literal(guard) + "] } }"
}

// ProtectedOptInLine renders a policy line letting the agent write the
// protected root, or run the guardrun command, key.
func ProtectedOptInLine(key string) string {
	return "policy @optIn = { protected: { except: [" + Literal(key) + "] } }"
}

// OptInLine renders a policy line opting in to parts of rule.
func OptInLine(rule string, parts []string) string {
	q := make([]string, len(parts))
	for i, p := range parts {
		q[i] = Literal(p)
	}
	return fmt.Sprintf("policy @optIn = { defaults: { except: { %s: [%s] } } }", Literal(rule), strings.Join(q, ", "))
}

// Literal writes s as a string of the language that means s as it is: in
// single quotes, which interpolate nothing ("@name" in double quotes
// would be the variable's value), unless s holds a quote or backslash.
func Literal(s string) string {
	if strings.ContainsAny(s, "'\\\n") {
		return strconv.Quote(s)
	}
	return "'" + s + "'"
}
