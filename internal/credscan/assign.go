package credscan

import "strings"

// assignments is the generic rule: a value that looks random assigned
// to a key whose name says it holds a secret, in any of the spellings
// of .env files, shell, JSON, YAML, code, URL queries and command
// lines (API_KEY=…, "client_secret": "…", password: …, ?token=…).
var assignments assignmentRule

type assignmentRule struct{}

// secretKeyWords are the lower-case fragments of key names that say
// the value is a secret.
var secretKeyWords = []string{"key", "secret", "token", "password", "passwd", "pwd", "credential", "auth", "api"}

var (
	// keyByte holds the bytes of a key name.
	keyByte = newCharset("A-Za-z0-9_.-")
	// valueByte holds the bytes of a generic secret value: printable
	// ASCII but blanks, quotes, the bytes that end a value in a query,
	// a list or an expression, and the operators themselves, so that
	// no operator lies inside the value of another (which keeps a pass
	// linear). Base64's trailing '=' padding is taken apart.
	valueByte = newCharset("A-Za-z0-9-_./+~!@#$%^*")
)

func (assignmentRule) appendMatches(dst []Match, text string, limit int) []Match {
	for _, op := range []anchor{{"=", 0}, {":", 0}} {
		op.each(text, func(at int) bool {
			m, ok := assignmentAt(text, at)
			if !ok {
				return true
			}
			dst = append(dst, m)
			return len(dst) != limit
		})
		if len(dst) == limit {
			break
		}
	}
	return dst
}

// assignmentAt returns the generic match whose operator is at
// text[op], which is '=' or ':'.
func assignmentAt(text string, op int) (Match, bool) {
	if op > 0 && strings.IndexByte("=!<>:+-*/%&|^", text[op-1]) >= 0 {
		return Match{}, false // ==, !=, <=, :=, +=, …: seen from the first byte, or not an assignment
	}
	valAt := op + 1
	if valAt < len(text) {
		switch next := text[valAt]; {
		case text[op] == '=' && next == '=', text[op] == ':' && next == ':':
			return Match{}, false
		case next == '>' && text[op] == '=', next == '=' && text[op] == ':':
			valAt++
		case text[op] == ':' && next == '/':
			return Match{}, false // a URL's scheme
		}
	}
	start := skipBlanks(text, valAt)
	var quote byte
	if start < len(text) && isQuote(text[start]) {
		quote = text[start]
		start++
	}
	end := valueEnd(text, start)
	if end-start < minSecretLen && end < len(text) && text[end] == ' ' {
		start = skipScheme(text, start)
		end = valueEnd(text, start)
	}
	switch {
	case quote != 0 && (end >= len(text) || text[end] != quote):
		return Match{}, false // a quoted value with more in it than a secret's bytes
	case quote == 0 && end < len(text) && text[end] == '(':
		return Match{}, false // a call in code
	}
	if end-start < minSecretLen || !secretKey(keyBefore(text, op)) || (quote == 0 && dottedName(text[start:end])) || !plausibleSecret(text[start:end]) {
		return Match{}, false
	}
	return Match{Rule: RuleGenericAssignment, Start: start, End: end}, true
}

// valueEnd returns the end of the generic value at text[start:],
// with up to two bytes of base64 padding, and at most maxSecretLen+1
// bytes long (longer is too long to be a secret).
func valueEnd(text string, start int) int {
	end := start + valueByte.runMax(text, start, maxSecretLen+1)
	pad := end
	for pad < len(text) && pad-end < 2 && text[pad] == '=' {
		pad++
	}
	if pad > end && (pad == len(text) || !valueByte[text[pad]] && text[pad] != '=') {
		return pad
	}
	return end
}

// keyBefore returns the key name that ends just before the operator at
// text[op], past blanks and a closing quote.
func keyBefore(text string, op int) string {
	end := op
	for end > 0 && (text[end-1] == ' ' || text[end-1] == '\t') {
		end--
	}
	if end > 0 && isQuote(text[end-1]) {
		end--
	}
	start := end
	for start > 0 && end-start < 64 && keyByte[text[start-1]] {
		start--
	}
	return text[start:end]
}

// secretKey reports whether a key's name says its value is a secret.
func secretKey(key string) bool {
	if len(key) < 3 {
		return false
	}
	var buf [64]byte
	lower := buf[:0]
	for i := 0; i < len(key); i++ {
		b := key[i]
		if 'A' <= b && b <= 'Z' {
			b += 'a' - 'A'
		}
		lower = append(lower, b)
	}
	ls := string(lower)
	for _, w := range secretKeyWords {
		if strings.Contains(ls, w) {
			return true
		}
	}
	return false
}

// skipScheme returns where the credential starts in a value that may
// name its authorization scheme first ("Bearer …", "Basic …").
func skipScheme(text string, at int) int {
	for _, s := range []string{"Bearer ", "bearer ", "Basic ", "basic ", "Token ", "token "} {
		if strings.HasPrefix(text[at:], s) {
			return skipBlanks(text, at+len(s))
		}
	}
	return at
}
