package policy

import "strings"

// Protects reports whether the set's label-flow rules keep data labelled
// l away from some operation: the label of a built-in rule that denies a
// flow (secret for no-secret-exfil, untrusted for
// no-untrusted-destructive…), a key of `labels`, and untrusted under
// `unlabeled: "untrusted"`. Removing such a label is how a script would
// get the data past the rule, so a locked set forbids it.
func (s *Set) Protects(l string) bool {
	if !s.Active() {
		return false
	}
	if s.labelNames[l] || (l == "untrusted" && s.stance == "untrusted") {
		return true
	}
	for _, name := range s.rules {
		if r, ok := builtinFlow(name); ok && !r.positional && r.label == l {
			return true
		}
	}
	return false
}

// GrantsTrust reports whether l is a label whose presence lets data
// through a built-in rule or vouches for it: known and its refinements
// (known:internal), which no-send-to-unknown, no-send-to-external and
// no-destroy-unknown require, and trusted. It does not depend on the
// set: a script must not be able to bless data before a policy arrives.
func GrantsTrust(l string) bool {
	if l == "trusted" {
		return true
	}
	for _, r := range builtinFlows {
		if r.positional && (l == r.label || strings.HasPrefix(l, r.label+":")) {
			return true
		}
	}
	return false
}

// CountsUntrusted reports whether data with these taint entries is
// untrusted: it carries untrusted or influenced, or only provenance
// markers under `unlabeled: "untrusted"`.
func (s *Set) CountsUntrusted(taint []string) bool {
	allSystem := len(taint) > 0
	for _, t := range taint {
		if t == "untrusted" || t == "influenced" {
			return true
		}
		if !isSystemLabel(t, s.stanceOrEmpty()) {
			allSystem = false
		}
	}
	return allSystem && s.stanceOrEmpty() == "untrusted"
}

func (s *Set) stanceOrEmpty() string {
	if s == nil {
		return ""
	}
	return s.stance
}
