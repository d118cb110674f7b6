package policy

import (
	"fmt"
	"github.com/guardrun/guardrun/internal/editdist"
	"strconv"
	"strings"

	"github.com/guardrun/guardrun/ast"
	"github.com/guardrun/guardrun/interp/value"
)

// Config is one validated policy layer.
type Config struct {
	// Locked forbids privileged guards from overriding flow denials.
	Locked bool
	// Rules are the enabled built-in rule names (defaults.rules),
	// deduplicated, in order.
	Rules []string
	// Unlabeled is the defaults.unlabeled stance: "", "trusted" or
	// "untrusted".
	Unlabeled string
	// Labels are the labels rules, in key order.
	Labels []LabelRule
	// Operations map risk categories to semantic labels, in key order.
	Operations []Operation
	// Allow is the allow list; nil means none (allow: true or absent).
	Allow *Capabilities
	// Deny is what is denied; nil means nothing.
	Deny *Capabilities
	// DenyAll is deny: true (or a deny list containing "*").
	DenyAll bool
	// Danger are the opted-in dangerous command patterns, normalized
	// ("git:push:*:--force").
	Danger []string
	// Timeout is limits.timeout in milliseconds; 0 means none.
	Timeout float64
	// GuardExcept are the guards this policy turns off (`guards: {
	// except: ["@name"] }`), names without '@'.
	GuardExcept []Except
	// RuleExcept relax built-in label-flow rules for parts of an
	// operation (`defaults: { except: { "no-secret-exfil": ["cmd:curl"] } }`).
	RuleExcept []RuleExcept
	// ProtectedExcept are the protected paths and guardrun commands the
	// agent engine lets the agent write or run (`protected: { except:
	// [...] }`); the engine reads them from the user's policy only.
	ProtectedExcept []Except
}

// LabelRule says where data carrying Label may (Allow) and may not (Deny)
// flow; the most specific matching rule wins.
type LabelRule struct {
	Label       string
	Deny, Allow []string
}

// Operation maps a risk category (e.g. "exfil") to the semantic operation
// labels that belong to it (e.g. "net:w").
type Operation struct {
	Category string
	Labels   []string
}

// Capabilities is an allow or deny list of capabilities.
type Capabilities struct {
	// Cmd are normalized command patterns: "echo", "echo:*", "git:status",
	// "*" (any command).
	Cmd []string
	// HasCmd reports that a cmd entry was given; an allow list without one
	// allows no command.
	HasCmd bool
	// Sh, Network and JS name the shell, network and JavaScript
	// capabilities.
	Sh, Network, JS bool
}

// builtinRules are the defaults.rules names guardrun enforces.
var builtinRules = []string{
	"no-secret-exfil",
	"no-sensitive-exfil",
	"no-send-to-unknown",
	"no-send-to-external",
	"no-destroy-unknown",
	"no-untrusted-destructive",
	"no-untrusted-privileged",
	"no-influenced-advice",
	"untrusted-llms-get-influenced",
	// Agent sessions (AGENT.md §4): confidentiality labels of what the
	// agent read become context-wide instead of following the content.
	"session-taint-strict",
}

// unsupportedRules are mlld rules guardrun does not implement; accepting
// them would be a silent no-op.
var unsupportedRules = []string{"no-novel-urls"}

var (
	topKeys         = []string{"locked", "defaults", "labels", "operations", "allow", "deny", "deny_cmd", "capabilities", "danger", "limits", "guards", "protected"}
	topUnsupported  = []string{"auth", "keychain", "env", "authorizations", "facts", "signers", "filesystem_integrity", "urls", "default", "verify_all_instructions"}
	defaultsKeys    = []string{"rules", "unlabeled", "except"}
	defaultsUnsupp  = []string{"autosign", "autoverify", "trustconflict"}
	labelRuleKeys   = []string{"deny", "allow"}
	capsKeys        = []string{"allow", "deny", "danger"}
	capObjectKeys   = []string{"cmd", "sh", "network", "js", "node"}
	capObjectUnsupp = []string{"fs", "filesystem"}
	limitsKeys      = []string{"timeout"}
	limitsUnsupp    = []string{"maxTokens"}
	ruleObjectKeys  = []string{"rule"}
	ruleObjectUnsup = []string{"taintFacts"}
	capEntryNames   = []string{"cmd", "sh", "network", "js", "node"}
)

// pathElem is one step of a key path: an object key or an array index.
type pathElem struct {
	key   string
	index int
}

// keyPath addresses a value inside the policy object.
type keyPath []pathElem

func (p keyPath) key(k string) keyPath {
	return append(p[:len(p):len(p)], pathElem{key: k, index: -1})
}

func (p keyPath) at(i int) keyPath {
	return append(p[:len(p):len(p)], pathElem{index: i})
}

// String renders the path as "defaults.rules[1]".
func (p keyPath) String() string {
	var b strings.Builder
	for _, e := range p {
		if e.index >= 0 {
			b.WriteString("[" + strconv.Itoa(e.index) + "]")
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(e.key)
	}
	return b.String()
}

// parts returns the path as the Locator takes it.
func (p keyPath) parts() []string {
	out := make([]string, len(p))
	for i, e := range p {
		if e.index >= 0 {
			out[i] = strconv.Itoa(e.index)
		} else {
			out[i] = e.key
		}
	}
	return out
}

type parser struct {
	loc Locator
}

func (ps *parser) fail(p keyPath, hint, format string, args ...any) *ConfigError {
	return &ConfigError{Path: p.String(), Pos: ps.loc(p.parts()), Message: fmt.Sprintf(format, args...), Hint: hint}
}

// Parse validates one policy object (the evaluated value, a *value.Object)
// and returns its layer. Any unknown key, wrong type, unknown rule name or
// unsupported feature is a *ConfigError: a policy that does not say what
// the author meant must not run.
func Parse(data any, loc Locator) (*Config, error) {
	ps := &parser{loc: loc}
	if ps.loc == nil {
		ps.loc = nopLocator
	}
	obj, ok := data.(*value.Object)
	if !ok {
		return nil, ps.fail(nil, fmt.Sprintf("got %s; write e.g. { defaults: { rules: [\"no-secret-exfil\"] } }", value.KindName(data)), "a policy must be an object")
	}
	var base keyPath
	if v, ok := obj.Get("config"); ok {
		inner, isObj := v.(*value.Object)
		if !isObj {
			return nil, ps.fail(keyPath{}.key("config"), "wrap the policy as config: { ... } or write its keys at the top level", "policy key 'config' must be an object, got %s", value.KindName(v))
		}
		for _, k := range obj.Keys {
			if k != "config" {
				return nil, ps.fail(keyPath{}.key(k), "move it inside config: { ... }", "unknown policy key '%s' next to 'config'", k)
			}
		}
		obj, base = inner, keyPath{}.key("config")
	}
	return ps.config(obj, base)
}

func nopLocator([]string) ast.Pos { return ast.Pos{} }

func (ps *parser) config(obj *value.Object, base keyPath) (*Config, error) {
	cfg := &Config{}
	var allows []capList
	var denies []capList
	var err error
	for _, k := range obj.Keys {
		v := obj.Values[k]
		p := base.key(k)
		switch k {
		case "locked":
			b, ok := v.(bool)
			if !ok {
				return nil, ps.fail(p, "write locked: true", "policy key '%s' must be a boolean, got %s", p, value.KindName(v))
			}
			cfg.Locked = b
		case "defaults":
			if err = ps.defaults(cfg, v, p); err != nil {
				return nil, err
			}
		case "labels":
			if cfg.Labels, err = ps.labels(v, p); err != nil {
				return nil, err
			}
		case "operations":
			if cfg.Operations, err = ps.operations(v, p); err != nil {
				return nil, err
			}
		case "allow", "deny":
			cl, err := ps.capabilities(v, p, k == "allow")
			if err != nil {
				return nil, err
			}
			if k == "allow" {
				allows = append(allows, cl)
			} else {
				denies = append(denies, cl)
			}
		case "deny_cmd":
			cl, err := ps.denyCmd(v, p)
			if err != nil {
				return nil, err
			}
			denies = append(denies, cl)
		case "capabilities":
			a, d, err := ps.capabilitiesBlock(cfg, v, p)
			if err != nil {
				return nil, err
			}
			allows = append(allows, a...)
			denies = append(denies, d...)
		case "danger":
			if err = ps.danger(cfg, v, p); err != nil {
				return nil, err
			}
		case "limits":
			if err = ps.limits(cfg, v, p); err != nil {
				return nil, err
			}
		case "guards":
			if err = ps.guards(cfg, v, p); err != nil {
				return nil, err
			}
		case "protected":
			if err = ps.protected(cfg, v, p); err != nil {
				return nil, err
			}
		default:
			return nil, ps.unknownKey(p, k, topKeys, topUnsupported)
		}
	}
	cfg.Allow = intersectAllows(allows)
	cfg.Deny, cfg.DenyAll = unionDenies(denies)
	return cfg, nil
}

// unknownKey reports a key that is either unknown or known-but-unenforced.
func (ps *parser) unknownKey(p keyPath, k string, known, unsupported []string) *ConfigError {
	if contains(unsupported, k) {
		return ps.fail(p, "guardrun does not enforce it, so it would be silently ignored; remove it", "policy key '%s' is not supported by guardrun", p)
	}
	return ps.fail(p, suggest(k, known, "supported keys"), "unknown policy key '%s'", p)
}

// suggest returns "did you mean 'x'?" for the closest candidate within
// edit distance 2, else the list of candidates.
func suggest(got string, candidates []string, what string) string {
	if best := Closest(got, candidates); best != "" {
		return fmt.Sprintf("did you mean '%s'?", best)
	}
	return what + ": " + strings.Join(candidates, ", ")
}

// Closest returns the candidate nearest to got within edit distance 2
// (the first of equally near ones, in the order given), or "" when none
// is that near. A candidate equal to got is not a suggestion.
func Closest(got string, candidates []string) string {
	best, bestD := "", 3
	for _, c := range candidates {
		if d := editdist.Distance(got, c); d < bestD && c != got {
			best, bestD = c, d
		}
	}
	return best
}

func (ps *parser) object(v any, p keyPath, hint string) (*value.Object, error) {
	o, ok := v.(*value.Object)
	if !ok {
		return nil, ps.fail(p, hint, "policy key '%s' must be an object, got %s", p, value.KindName(v))
	}
	return o, nil
}

func (ps *parser) defaults(cfg *Config, v any, p keyPath) error {
	o, err := ps.object(v, p, `write defaults: { rules: ["no-secret-exfil"] }`)
	if err != nil {
		return err
	}
	for _, k := range o.Keys {
		kv, kp := o.Values[k], p.key(k)
		switch k {
		case "rules":
			arr, ok := kv.([]any)
			if !ok {
				return ps.fail(kp, `write rules: ["no-secret-exfil"]`, "policy key '%s' must be an array of rule names, got %s", kp, value.KindName(kv))
			}
			for i, e := range arr {
				name, err := ps.ruleName(e, kp.at(i))
				if err != nil {
					return err
				}
				if !contains(cfg.Rules, name) {
					cfg.Rules = append(cfg.Rules, name)
				}
			}
		case "unlabeled":
			s, ok := kv.(string)
			if !ok || (s != "trusted" && s != "untrusted") {
				return ps.fail(kp, `use unlabeled: "untrusted" or unlabeled: "trusted"`, "policy key '%s' must be \"trusted\" or \"untrusted\", got %s", kp, describe(kv))
			}
			cfg.Unlabeled = s
		case "except":
			if err := ps.ruleExcepts(cfg, kv, kp); err != nil {
				return err
			}
		default:
			return ps.unknownKey(kp, k, defaultsKeys, defaultsUnsupp)
		}
	}
	return nil
}

func (ps *parser) ruleName(e any, p keyPath) (string, error) {
	rp := p
	if o, ok := e.(*value.Object); ok {
		rv, has := o.Get("rule")
		for _, k := range o.Keys {
			if k != "rule" {
				return "", ps.unknownKey(p.key(k), k, ruleObjectKeys, ruleObjectUnsup)
			}
		}
		if !has {
			return "", ps.fail(p, `write { rule: "no-secret-exfil" }`, "policy key '%s' must name a rule", p)
		}
		e, rp = rv, p.key("rule")
	}
	name, ok := e.(string)
	if !ok {
		return "", ps.fail(rp, "rule names are strings", "policy key '%s' must be a rule name, got %s", rp, value.KindName(e))
	}
	name = strings.TrimSpace(name)
	if name == "" {
		return "", ps.fail(rp, "known rules: "+strings.Join(builtinRules, ", "), "policy key '%s' is an empty rule name", rp)
	}
	if contains(unsupportedRules, name) {
		return "", ps.fail(rp, "guardrun does not enforce it, so it would be silently ignored; remove it", "built-in rule '%s' is not supported by guardrun", name)
	}
	if !contains(builtinRules, name) {
		return "", ps.fail(rp, suggest(name, builtinRules, "known rules"), "unknown built-in rule '%s' in defaults.rules", name)
	}
	return name, nil
}

// stringList validates a non-empty-string array; what names the entries
// for the hint ("labels", "targets").
func (ps *parser) stringList(v any, p keyPath, hint string) ([]string, error) {
	arr, ok := v.([]any)
	if !ok {
		return nil, ps.fail(p, hint, "policy key '%s' must be an array of strings, got %s", p, value.KindName(v))
	}
	out := make([]string, 0, len(arr))
	for i, e := range arr {
		s, ok := e.(string)
		if !ok {
			return nil, ps.fail(p.at(i), hint, "policy key '%s' must be a string, got %s", p.at(i), value.KindName(e))
		}
		s = strings.TrimSpace(s)
		if s == "" {
			return nil, ps.fail(p.at(i), hint, "policy key '%s' is an empty string", p.at(i))
		}
		if !contains(out, s) {
			out = append(out, s)
		}
	}
	return out, nil
}

func (ps *parser) labels(v any, p keyPath) ([]LabelRule, error) {
	o, err := ps.object(v, p, `write labels: { secret: { deny: ["op:show"] } }`)
	if err != nil {
		return nil, err
	}
	out := make([]LabelRule, 0, len(o.Keys))
	for _, label := range o.Keys {
		lp := p.key(label)
		if strings.TrimSpace(label) == "" {
			return nil, ps.fail(lp, "name the data label the rule is for", "policy key '%s' has an empty label name", lp)
		}
		ro, err := ps.object(o.Values[label], lp, fmt.Sprintf(`write %s: { deny: ["op:show"], allow: [...] }`, label))
		if err != nil {
			return nil, err
		}
		rule := LabelRule{Label: label}
		for _, k := range ro.Keys {
			kp := p.key(label).key(k)
			hint := fmt.Sprintf(`write %s: ["op:show"]`, k)
			switch k {
			case "deny":
				if rule.Deny, err = ps.stringList(ro.Values[k], kp, hint); err != nil {
					return nil, err
				}
			case "allow":
				if rule.Allow, err = ps.stringList(ro.Values[k], kp, hint); err != nil {
					return nil, err
				}
			default:
				return nil, ps.unknownKey(kp, k, labelRuleKeys, nil)
			}
		}
		out = append(out, rule)
	}
	return out, nil
}

func (ps *parser) operations(v any, p keyPath) ([]Operation, error) {
	o, err := ps.object(v, p, `write operations: { exfil: ["net:w"] }`)
	if err != nil {
		return nil, err
	}
	out := make([]Operation, 0, len(o.Keys))
	for _, cat := range o.Keys {
		cp := p.key(cat)
		if strings.TrimSpace(cat) == "" {
			return nil, ps.fail(cp, "name the risk category, e.g. exfil", "policy key '%s' has an empty category name", cp)
		}
		hint := fmt.Sprintf(`use %s: ["label"]`, cat)
		if s, ok := o.Values[cat].(string); ok {
			hint = fmt.Sprintf(`use %s: [%q]`, cat, s)
		}
		labels, err := ps.stringList(o.Values[cat], cp, hint)
		if err != nil {
			return nil, err
		}
		out = append(out, Operation{Category: cat, Labels: labels})
	}
	return out, nil
}

// capList is one allow or deny source before the sources are combined.
type capList struct {
	all  bool
	caps Capabilities
}

func (ps *parser) capabilities(v any, p keyPath, allow bool) (capList, error) {
	switch t := v.(type) {
	case bool:
		if t {
			return capList{all: true}, nil
		}
	case []any:
		return ps.capArray(t, p)
	case *value.Object:
		return ps.capObject(t, p)
	}
	hint := `write ["cmd:echo:*", "sh"], { cmd: ["echo"] } or true`
	if !allow {
		hint = `write ["sh", "network"], { cmd: ["rm"] } or true`
	}
	return capList{}, ps.fail(p, hint, "policy key '%s' must be true, an array of capabilities or an object, got %s", p, describe(v))
}

func (ps *parser) capArray(arr []any, p keyPath) (capList, error) {
	var cl capList
	for i, e := range arr {
		ep := p.at(i)
		s, ok := e.(string)
		if !ok {
			return cl, ps.fail(ep, `capabilities are strings such as "cmd:echo:*", "sh", "network", "js"`, "policy key '%s' must be a string, got %s", ep, value.KindName(e))
		}
		entry := strings.TrimSpace(s)
		lower := strings.ToLower(entry)
		switch {
		case entry == "":
			return cl, ps.fail(ep, `capabilities are strings such as "cmd:echo:*", "sh", "network", "js"`, "policy key '%s' is an empty string", ep)
		case entry == "*":
			cl.all = true
		case isCmdEntry(lower):
			pat, ok := normalizeCmdEntry(entry)
			if !ok {
				return cl, ps.fail(ep, `write "cmd:git:status" or "cmd:npm:*"`, "policy key '%s' has an empty command pattern", ep)
			}
			cl.caps.addCmd(pat)
		case lower == "sh":
			cl.caps.Sh = true
		case lower == "network":
			cl.caps.Network = true
		case lower == "js" || lower == "node":
			cl.caps.JS = true
		case lower == "fs" || lower == "filesystem" || strings.HasPrefix(lower, "fs:"):
			return cl, ps.fail(ep, "guardrun does not enforce filesystem capabilities, so it would be silently ignored; remove it", "policy capability '%s' is not supported by guardrun", entry)
		default:
			return cl, ps.fail(ep, suggest(lower, capEntryNames, `capabilities: "cmd", "cmd:PATTERN", "sh", "network", "js", "node", "*"`), "unknown capability '%s' in %s", entry, p)
		}
	}
	return cl, nil
}

func (ps *parser) capObject(o *value.Object, p keyPath) (capList, error) {
	var cl capList
	for _, k := range o.Keys {
		v, kp := o.Values[k], p.key(k)
		switch k {
		case "cmd":
			cl.caps.HasCmd = true
			switch t := v.(type) {
			case bool:
				if !t {
					return cl, ps.fail(kp, `write cmd: ["echo", "git:status"], or omit cmd`, "policy key '%s' must be true, \"*\" or an array of command patterns, got false", kp)
				}
				cl.caps.addCmd("*")
			case string:
				if strings.TrimSpace(t) != "*" {
					return cl, ps.fail(kp, fmt.Sprintf(`use cmd: [%q]`, t), "policy key '%s' must be true, \"*\" or an array of command patterns, got string", kp)
				}
				cl.caps.addCmd("*")
			case []any:
				for i, e := range t {
					ep := kp.at(i)
					s, ok := e.(string)
					if !ok {
						return cl, ps.fail(ep, `command patterns are strings such as "echo" or "cmd:git:status"`, "policy key '%s' must be a string, got %s", ep, value.KindName(e))
					}
					pat, ok := normalizeCmdEntry(s)
					if !ok {
						return cl, ps.fail(ep, `command patterns are strings such as "echo" or "cmd:git:status"`, "policy key '%s' is an empty command pattern", ep)
					}
					cl.caps.addCmd(pat)
				}
			default:
				return cl, ps.fail(kp, `write cmd: ["echo", "git:status"]`, "policy key '%s' must be true, \"*\" or an array of command patterns, got %s", kp, value.KindName(v))
			}
		case "sh", "network", "js", "node":
			b, err := ps.capFlag(v, kp)
			if err != nil {
				return cl, err
			}
			switch k {
			case "sh":
				cl.caps.Sh = cl.caps.Sh || b
			case "network":
				cl.caps.Network = cl.caps.Network || b
			default:
				cl.caps.JS = cl.caps.JS || b
			}
		case "danger":
			return cl, ps.fail(kp, "danger opt-ins go in the policy's danger: [...] or capabilities.danger", "unknown policy key '%s'", kp)
		default:
			return cl, ps.unknownKey(kp, k, capObjectKeys, capObjectUnsupp)
		}
	}
	return cl, nil
}

// capFlag reads a boolean capability value; ["*"] means true, as in mlld.
// Anything finer (network domain lists) is not enforced, so it is refused.
func (ps *parser) capFlag(v any, p keyPath) (bool, error) {
	switch t := v.(type) {
	case bool:
		return t, nil
	case []any:
		if len(t) == 1 && t[0] == "*" {
			return true, nil
		}
		return false, ps.fail(p, fmt.Sprintf("write %s: true", p[len(p)-1].key), "policy key '%s' only supports true, false or [\"*\"]; finer lists are not supported by guardrun", p)
	}
	return false, ps.fail(p, fmt.Sprintf("write %s: true", p[len(p)-1].key), "policy key '%s' must be a boolean, got %s", p, value.KindName(v))
}

func (ps *parser) denyCmd(v any, p keyPath) (capList, error) {
	hint := `write deny_cmd: ["rm", "git:push"]`
	if s, ok := v.(string); ok {
		hint = fmt.Sprintf("use deny_cmd: [%q]", s)
	}
	arr, ok := v.([]any)
	if !ok {
		return capList{}, ps.fail(p, hint, "policy key '%s' must be an array of commands, got %s", p, value.KindName(v))
	}
	cl := capList{caps: Capabilities{HasCmd: true}}
	for i, e := range arr {
		ep := p.at(i)
		s, ok := e.(string)
		if !ok {
			return cl, ps.fail(ep, hint, "policy key '%s' must be a string, got %s", ep, value.KindName(e))
		}
		pat, ok := normalizeCmdEntry(s)
		if !ok {
			return cl, ps.fail(ep, hint, "policy key '%s' is an empty command pattern", ep)
		}
		cl.caps.addCmd(pat)
	}
	return cl, nil
}

func (ps *parser) capabilitiesBlock(cfg *Config, v any, p keyPath) (allows, denies []capList, err error) {
	o, err := ps.object(v, p, `write capabilities: { allow: ["cmd:echo:*"], deny: ["sh"] }`)
	if err != nil {
		return nil, nil, err
	}
	for _, k := range o.Keys {
		kv, kp := o.Values[k], p.key(k)
		switch k {
		case "allow", "deny":
			cl, err := ps.capabilities(kv, kp, k == "allow")
			if err != nil {
				return nil, nil, err
			}
			if k == "allow" {
				allows = append(allows, cl)
			} else {
				denies = append(denies, cl)
			}
		case "danger":
			if err := ps.danger(cfg, kv, kp); err != nil {
				return nil, nil, err
			}
		default:
			return nil, nil, ps.unknownKey(kp, k, capsKeys, nil)
		}
	}
	return allows, denies, nil
}

func (ps *parser) danger(cfg *Config, v any, p keyPath) error {
	hint := `write danger: ["cmd:git:push:*:--force"]`
	if s, ok := v.(string); ok {
		hint = fmt.Sprintf("use danger: [%q]", s)
	}
	arr, ok := v.([]any)
	if !ok {
		return ps.fail(p, hint, "policy key '%s' must be an array of command patterns, got %s", p, value.KindName(v))
	}
	for i, e := range arr {
		ep := p.at(i)
		s, ok := e.(string)
		if !ok {
			return ps.fail(ep, hint, "policy key '%s' must be a string, got %s", ep, value.KindName(e))
		}
		entry := strings.TrimSpace(s)
		if entry == "" {
			return ps.fail(ep, hint, "policy key '%s' is an empty string", ep)
		}
		if !isCmdEntry(strings.ToLower(entry)) {
			return ps.fail(ep, "guardrun only enforces dangerous commands (cmd:… patterns), so it would be silently ignored; remove it", "danger entry '%s' is not supported by guardrun", entry)
		}
		pat, ok := normalizeCmdEntry(entry)
		if !ok {
			return ps.fail(ep, hint, "policy key '%s' has an empty command pattern", ep)
		}
		if !contains(cfg.Danger, pat) {
			cfg.Danger = append(cfg.Danger, pat)
		}
	}
	return nil
}

func (ps *parser) limits(cfg *Config, v any, p keyPath) error {
	o, err := ps.object(v, p, "write limits: { timeout: 5000 }")
	if err != nil {
		return err
	}
	for _, k := range o.Keys {
		kv, kp := o.Values[k], p.key(k)
		switch k {
		case "timeout":
			n, ok := kv.(float64)
			if !ok || !(n > 0) {
				return ps.fail(kp, "write timeout: 5000 (milliseconds)", "policy key '%s' must be a positive number of milliseconds, got %s", kp, describe(kv))
			}
			cfg.Timeout = n
		default:
			return ps.unknownKey(kp, k, limitsKeys, limitsUnsupp)
		}
	}
	return nil
}

func (c *Capabilities) addCmd(pattern string) {
	c.HasCmd = true
	if !contains(c.Cmd, pattern) {
		c.Cmd = append(c.Cmd, pattern)
	}
}

// allCmd reports a cmd list that admits every command.
func (c *Capabilities) allCmd() bool { return contains(c.Cmd, "*") }

// intersectAllows combines a layer's allow sources (allow and
// capabilities.allow): like mlld, what both allow. A wildcard source does
// not constrain; no constraining source means no allow list.
func intersectAllows(lists []capList) *Capabilities {
	var out *Capabilities
	for _, l := range lists {
		if l.all {
			continue
		}
		out = out.intersect(l.caps)
	}
	return out
}

// intersect is what both c and o allow; a nil c is no constraint yet, and
// the result is a fresh value.
func (c *Capabilities) intersect(o Capabilities) *Capabilities {
	if c == nil {
		o.Cmd = append([]string(nil), o.Cmd...)
		return &o
	}
	c.Cmd, c.HasCmd = intersectCmd(c, &o)
	c.Sh = c.Sh && o.Sh
	c.Network = c.Network && o.Network
	c.JS = c.JS && o.JS
	return c
}

// intersectCmd is the string intersection of two cmd lists, where "*"
// takes the other side.
func intersectCmd(a, b *Capabilities) ([]string, bool) {
	switch {
	case !a.HasCmd || !b.HasCmd:
		return nil, false
	case a.allCmd():
		return append([]string(nil), b.Cmd...), true
	case b.allCmd():
		return append([]string(nil), a.Cmd...), true
	}
	var out []string
	for _, p := range a.Cmd {
		if contains(b.Cmd, p) {
			out = append(out, p)
		}
	}
	return out, true
}

// unionDenies combines a layer's deny sources (deny, deny_cmd,
// capabilities.deny).
func unionDenies(lists []capList) (*Capabilities, bool) {
	var out *Capabilities
	all := false
	for _, l := range lists {
		if l.all {
			all = true
			continue
		}
		if out == nil {
			out = &Capabilities{}
		}
		for _, p := range l.caps.Cmd {
			out.addCmd(p)
		}
		out.HasCmd = out.HasCmd || l.caps.HasCmd
		out.Sh = out.Sh || l.caps.Sh
		out.Network = out.Network || l.caps.Network
		out.JS = out.JS || l.caps.JS
	}
	return out, all
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}

// describe names a scalar by its value and anything else by its type.
func describe(v any) string {
	switch t := v.(type) {
	case string:
		return strconv.Quote(t)
	case bool, float64:
		return fmt.Sprint(t)
	}
	return value.KindName(v)
}
