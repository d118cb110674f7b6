package credscan

import (
	"math"
	"strings"
)

// placeholderMarks are lower-case fragments of the values that
// documentation, templates and tests put where a secret would go.
var placeholderMarks = []string{
	"changeme", "change_me", "change-me", "example", "dummy", "placeholder",
	"your-", "your_", "yourkey", "-here", "_here", "xxxx", "****", "....",
	"redacted", "<", ">", "${", "{{", "%s", "%v", "replace", "sample", "fake",
}

// placeholder reports whether v is a stand-in for a secret rather than
// one: a template variable, a marked example, or one byte repeated.
func placeholder(v string) bool {
	if v == "" || v[0] == '$' || v[0] == '%' {
		return true
	}
	if strings.Count(v, v[:1]) == len(v) {
		return true
	}
	var buf [512]byte
	lower := buf[:0]
	for i := 0; i < len(v) && i < len(buf); i++ {
		b := v[i]
		if 'A' <= b && b <= 'Z' {
			b += 'a' - 'A'
		}
		lower = append(lower, b)
	}
	ls := string(lower)
	for _, m := range placeholderMarks {
		if strings.Contains(ls, m) {
			return true
		}
	}
	return false
}

// entropy returns the Shannon entropy of v's bytes, in bits per byte.
func entropy(v string) float64 {
	var counts [256]int
	for i := 0; i < len(v); i++ {
		counts[v[i]]++
	}
	h, n := 0.0, float64(len(v))
	for _, c := range counts {
		if c > 0 {
			p := float64(c) / n
			h -= p * math.Log2(p)
		}
	}
	return h
}

// Bounds on the value of a generic assignment.
const (
	minSecretLen  = 16
	maxSecretLen  = 512
	minSecretBits = 3.0 // Shannon entropy, bits per byte
)

// plausibleSecret reports whether v, assigned to a key that names a
// secret, looks like one: long enough, not a placeholder, not a path or
// URL, and random enough.
func plausibleSecret(v string) bool {
	if len(v) < minSecretLen || len(v) > maxSecretLen {
		return false
	}
	switch v[0] {
	case '/', '.', '~':
		return false
	}
	if strings.Contains(v, "://") || placeholder(v) {
		return false
	}
	return entropy(v) >= minSecretBits
}

// plausiblePassword reports whether v, found where a config file keeps
// a password, is one: at least six bytes, not a placeholder, and not a
// plain word (all letters), which is what prose puts after "password".
func plausiblePassword(v string) bool {
	if len(v) < 6 || len(v) > maxSecretLen || placeholder(v) {
		return false
	}
	for i := 0; i < len(v); i++ {
		b := v[i]
		if !('a' <= b && b <= 'z' || 'A' <= b && b <= 'Z') {
			return true
		}
	}
	return false
}
