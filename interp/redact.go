package interp

import (
	"sort"
	"strings"

	"github.com/guardrun/guardrun/interp/policy"
	"github.com/guardrun/guardrun/taint"
)

// maxRedactions bounds the values a run remembers for masking. Past it,
// a policy denial's command is masked as a whole: an error never shows
// a value it could not check.
const maxRedactions = 4096

// redactions remembers the text of labelled values that went into
// commands, so that a policy error or explanation quoting the command
// (`Command: curl -d sk-live-42 …`) shows `[REDACTED]` in their place.
// Errors travel further than data (logs, an LLM reading them back) and
// carry no labels.
type redactions struct {
	values   []redaction
	seen     map[string]bool
	overflow bool
}

type redaction struct {
	text   string
	labels []string
}

// add remembers text if d carries a label (source markers alone, such as
// src:file, do not make data confidential).
func (r *redactions) add(text string, d taint.Descriptor) {
	if text == "" || !labelled(d) || r.seen[text] {
		return
	}
	if len(r.values) >= maxRedactions {
		r.overflow = true
		return
	}
	if r.seen == nil {
		r.seen = map[string]bool{}
	}
	r.seen[text] = true
	r.values = append(r.values, redaction{text: text, labels: d.Taint()})
}

func labelled(d taint.Descriptor) bool {
	for _, l := range d.Taint() {
		if !strings.HasPrefix(l, "src:") && !strings.HasPrefix(l, "dir:") {
			return true
		}
	}
	return false
}

// confidential reports whether labels hold a label p masks.
func confidential(labels []string, p *policy.Set) bool {
	for _, l := range labels {
		if p.Confidential(l) {
			return true
		}
	}
	return false
}

// mask replaces in s every remembered confidential value with [REDACTED].
// Longer values go first, so a value containing another is masked whole.
func (r *redactions) mask(s string, p *policy.Set) string {
	if s == "" {
		return s
	}
	if r.overflow {
		return "[REDACTED]"
	}
	var hits []string
	for _, v := range r.values {
		if confidential(v.labels, p) && strings.Contains(s, v.text) {
			hits = append(hits, v.text)
		}
	}
	if len(hits) == 0 {
		return s
	}
	sort.Slice(hits, func(i, j int) bool { return len(hits[i]) > len(hits[j]) })
	for _, h := range hits {
		s = strings.ReplaceAll(s, h, "[REDACTED]")
	}
	return s
}

// redactDenial returns d with the remembered confidential values masked in
// what errors and explanations print of it.
func (in *interp) redactDenial(d *policy.Denial) *policy.Denial {
	m := func(s string) string { return in.redact.mask(s, &in.policy) }
	if reason, command, matched := m(d.Reason), m(d.Command), m(d.Matched); reason != d.Reason || command != d.Command || matched != d.Matched {
		c := *d
		c.Reason, c.Command, c.Matched = reason, command, matched
		return &c
	}
	return d
}
