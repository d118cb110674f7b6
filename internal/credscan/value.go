package credscan

import (
	"math"
	"strings"
)

// placeholderMarks are lower-case fragments of the values that
// documentation, templates and tests put where a secret would go.
var placeholderMarks = []string{
	"changeme", "change_me", "change-me", "example", "dummy", "placeholder",
	"your-", "your_", "yourkey", "-here", "_here", "****", "....",
	"redacted", "<", ">", "${", "{{", "%s", "%v", "replace", "sample", "fake",
}

// placeholder reports whether v is a stand-in for a secret rather than
// one: a template variable, a marked example, or one byte repeated.
func placeholder(v string) bool {
	if v == "" || v[0] == '$' || v[0] == '%' {
		return true
	}
	if strings.Count(v, v[:1]) == len(v) || strings.Contains(v, "xxxx") || strings.Contains(v, "XXXX") {
		return true // one byte repeated, or a run of x in one case (a mixed-case one turns up in random base64)
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
// secret, looks like one: long enough, not a path, a placeholder or a
// name from code, and random enough. (A URL never gets here: its ':'
// ends a generic value.)
func plausibleSecret(v string) bool {
	if len(v) < minSecretLen || len(v) > maxSecretLen {
		return false
	}
	switch v[0] {
	case '/', '.', '~':
		return false
	}
	if placeholder(v) || identifierLike(v) || namesASecret(v) {
		return false
	}
	return entropy(v) >= minSecretBits
}

// selfNaming are lower-case words that, inside a value, make it the
// name of a secret (testRSA2048PrivateKey, hexPKCS8TestECKey) rather
// than one: random bytes spell them about once in a thousand values.
var selfNaming = []string{"key", "secret", "token", "passw", "private", "public", "cert"}

// namesASecret reports whether v spells one of selfNaming, in any case.
func namesASecret(v string) bool {
	var buf [maxSecretLen]byte
	lower := buf[:0]
	for i := 0; i < len(v) && i < len(buf); i++ {
		b := v[i]
		if isUpper(b) {
			b += 'a' - 'A'
		}
		lower = append(lower, b)
	}
	ls := string(lower)
	for _, w := range selfNaming {
		if strings.Contains(ls, w) {
			return true
		}
	}
	return false
}

// dottedName reports whether v is a selector chain from code,
// identifiers joined by dots (asn1.NullRawValue, in.TBSCSR.PublicKey).
func dottedName(v string) bool {
	dots := 0
	for i := 0; i < len(v); {
		if !(isUpper(v[i]) || isLower(v[i]) || v[i] == '_') {
			return false // a segment that is not an identifier
		}
		i += alnumUnder.run(v, i)
		if i < len(v) {
			if v[i] != '.' || i+1 == len(v) {
				return false
			}
			dots++
			i++
		}
	}
	return dots > 0
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

// wordiness returns the fraction of v's bytes that belong to words:
// runs of four or more letters in one case, an initial capital allowed
// ("Compare", "hammer", "RIGHTS"). Identifiers are mostly words; random
// strings are not (in 32 random base62 bytes, under 0.4 in 999 of 1000).
func wordiness(v string) float64 {
	inWords := 0
	for i := 0; i < len(v); {
		k := i
		if isUpper(v[k]) {
			k++
		}
		for k < len(v) && isLower(v[k]) {
			k++
		}
		if k-i < 2 { // not a capitalised or lower-case word: an upper-case one?
			k = i
			for k < len(v) && isUpper(v[k]) {
				k++
			}
		}
		if k-i >= 4 {
			inWords += k - i
		}
		if k == i {
			k++
		}
		i = k
	}
	return float64(inWords) / float64(len(v))
}

func isUpper(b byte) bool { return 'A' <= b && b <= 'Z' }
func isLower(b byte) bool { return 'a' <= b && b <= 'z' }

// identifierLike reports whether v reads as a name from code
// (hammerCompareAndSwapInt32, STANDARD_RIGHTS_REQUIRED): mostly words,
// hardly any digits. It also rejects about 0.6% of random 32-byte
// base62 strings and 3% of lower-case-and-digit ones, which spell
// words more often: the price of quiet on source code.
func identifierLike(v string) bool {
	digits := 0
	for i := 0; i < len(v); i++ {
		if '0' <= v[i] && v[i] <= '9' {
			digits++
		}
	}
	return wordiness(v) >= 0.6 && digits*100 < len(v)*15
}
