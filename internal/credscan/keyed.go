package credscan

import "strings"

// An anchor is what a rule searches the text for: a literal s that its
// matches hold back bytes after their start. Searching for the rarer
// tail of a literal ("J" for "eyJ", "BEGIN " for "-----BEGIN ") is
// what keeps a pass over the text fast: strings.Index skips from one
// occurrence of the first byte to the next, and the fewer there are,
// the longer its strides.
type anchor struct {
	s    string
	back int
}

// each calls f with the start of every candidate in text, left to
// right, until f returns false. The candidate's first back bytes are
// f's to check.
func (a anchor) each(text string, f func(at int) bool) {
	for from := 0; from < len(text); {
		i := strings.Index(text[from:], a.s)
		if i < 0 {
			return
		}
		if at := from + i - a.back; at >= 0 && !f(at) {
			return
		}
		from += i + 1
	}
}

// literalAt reports whether text holds lit at at.
func literalAt(text string, at int, lit string) bool {
	return strings.HasPrefix(text[at:], lit)
}

// skipBlanks returns the index of the first byte at or after at that
// is neither a space nor a tab.
func skipBlanks(text string, at int) int {
	for at < len(text) && (text[at] == ' ' || text[at] == '\t') {
		at++
	}
	return at
}

// isQuote reports whether b opens or closes a quoted value.
func isQuote(b byte) bool { return b == '"' || b == '\'' || b == '`' }

// afterSeparator returns where the value starts after a key that ends
// at at: past a closing quote of the key, blanks, one of = : := =>,
// blanks and an opening quote (returned as quote, or 0).
func afterSeparator(text string, at int) (start int, quote byte, ok bool) {
	if at < len(text) && isQuote(text[at]) {
		at++
	}
	at = skipBlanks(text, at)
	switch {
	case strings.HasPrefix(text[at:], ":="), strings.HasPrefix(text[at:], "=>"):
		at += 2
	case strings.HasPrefix(text[at:], "=="):
		return 0, 0, false
	case at < len(text) && (text[at] == '=' || text[at] == ':'):
		at++
	default:
		return 0, 0, false
	}
	at = skipBlanks(text, at)
	if at < len(text) && isQuote(text[at]) {
		return at + 1, text[at], true
	}
	return at, 0, true
}

// awsSecretRule matches the 40-byte value assigned to an AWS secret
// access key, under the names the CLI's files, environment and JSON
// use.
type awsSecretRule struct{}

var awsSecretKeys = []struct {
	key    string
	anchor anchor
}{
	{"aws_secret_access_key", anchor{"_access_key", 10}},
	{"AWS_SECRET_ACCESS_KEY", anchor{"_ACCESS_KEY", 10}},
	{"SecretAccessKey", anchor{"AccessKey", 6}},
	{"secretAccessKey", anchor{"AccessKey", 6}},
	{"aws-secret-access-key", anchor{"-access-key", 10}},
}

func (awsSecretRule) appendMatches(dst []Match, text string, limit int) []Match {
	for _, k := range awsSecretKeys {
		key := k.key
		k.anchor.each(text, func(at int) bool {
			if !literalAt(text, at, key) {
				return true
			}
			start, quote, ok := afterSeparator(text, at+len(key))
			if !ok {
				return true
			}
			n := b64std.runMax(text, start, 41)
			end := start + n
			if n != 40 || (quote != 0 && (end >= len(text) || text[end] != quote)) || placeholder(text[start:end]) {
				return true
			}
			dst = append(dst, Match{Rule: RuleAWSSecretAccessKey, Start: start, End: end})
			return len(dst) != limit
		})
		if len(dst) == limit {
			break
		}
	}
	return dst
}

// npmrcRule matches the value of an .npmrc registry line,
// //registry.example/:_authToken=VALUE.
type npmrcRule struct{}

// npmrcValue holds the bytes of an .npmrc token: anything but blanks,
// quotes and line ends.
var npmrcValue = func() *charset {
	var c charset
	for b := 0x21; b < 0x7f; b++ {
		c[b] = !isQuote(byte(b))
	}
	for b := 0x80; b < 0x100; b++ {
		c[b] = true
	}
	return &c
}()

func (npmrcRule) appendMatches(dst []Match, text string, limit int) []Match {
	const key = ":_authToken="
	anchor{"_authToken=", 1}.each(text, func(at int) bool {
		if !literalAt(text, at, key) {
			return true
		}
		start := at + len(key)
		if start < len(text) && isQuote(text[start]) {
			start++
		}
		end := start + npmrcValue.runMax(text, start, maxSecretLen+1)
		if end-start < 8 || placeholder(text[start:end]) {
			return true
		}
		dst = append(dst, Match{Rule: RuleNPMRCAuthToken, Start: start, End: end})
		return len(dst) != limit
	})
	return dst
}

// privateKeyRule matches a PEM or OpenSSH private key block, from its
// BEGIN line through its END line, or through the end of its body when
// the text was cut before the END line.
type privateKeyRule struct{}

// pemBody holds the bytes of a key block's body, including its header
// fields and the "\n" escapes of a key inside a JSON string.
var pemBody = newCharset("A-Za-z0-9+/=\\:, \t\r\n-")

func (privateKeyRule) appendMatches(dst []Match, text string, limit int) []Match {
	const begin, dashes = "-----BEGIN ", "-----"
	anchor{"BEGIN ", 5}.each(text, func(at int) bool {
		if !literalAt(text, at, begin) {
			return true
		}
		labelAt := at + len(begin)
		labelEnd := labelAt
		for labelEnd < len(text) && labelEnd-labelAt < 40 && ('A' <= text[labelEnd] && text[labelEnd] <= 'Z' || text[labelEnd] == ' ') {
			labelEnd++
		}
		if !strings.Contains(text[labelAt:labelEnd], "PRIVATE KEY") || !strings.HasPrefix(text[labelEnd:], dashes) {
			return true
		}
		bodyAt := labelEnd + len(dashes)
		// The body ends at the next five dashes, the END line's or
		// another BEGIN line's: no hit scans past the next one's.
		bodyLen := strings.Index(text[bodyAt:], dashes)
		if bodyLen < 0 {
			bodyLen = len(text) - bodyAt
		}
		bodyEnd := bodyAt + pemBody.runMax(text, bodyAt, bodyLen)
		end := bodyEnd
		if strings.HasPrefix(text[bodyEnd:], "-----END ") {
			labelAt := bodyEnd + len("-----END ")
			if closeAt := strings.Index(text[labelAt:min(len(text), labelAt+40+len(dashes))], dashes); closeAt >= 0 {
				end = labelAt + closeAt + len(dashes)
			}
		} else {
			for end > bodyAt && (text[end-1] == ' ' || text[end-1] == '\t' || text[end-1] == '\r' || text[end-1] == '\n') {
				end--
			}
		}
		if b64std.count(text[bodyAt:bodyEnd]) < 32 {
			return true
		}
		dst = append(dst, Match{Rule: RulePrivateKey, Start: at, End: end})
		return len(dst) != limit
	})
	return dst
}

// jwtRule matches a signed JSON Web Token: two base64url JSON objects
// (each starting "eyJ", which is `{"`) and a signature, joined by dots.
type jwtRule struct{}

func (jwtRule) appendMatches(dst []Match, text string, limit int) []Match {
	anchor{"J", 2}.each(text, func(at int) bool {
		// Like a token's, a JWT does not continue a base64url run (nor
		// follow a dot), which also keeps each hit's scan its own.
		if !literalAt(text, at, "eyJ") || (at > 0 && (b64url[text[at-1]] || text[at-1] == '.')) {
			return true
		}
		end, ok := jwtSegment(text, at, true)
		if ok && end < len(text) && text[end] == '.' {
			end, ok = jwtSegment(text, end+1, true)
		} else {
			ok = false
		}
		if ok && end < len(text) && text[end] == '.' {
			end, ok = jwtSegment(text, end+1, false)
		} else {
			ok = false
		}
		if !ok || !wordEnd(text, end) {
			return true
		}
		dst = append(dst, Match{Rule: RuleJWT, Start: at, End: end})
		return len(dst) != limit
	})
	return dst
}

// jwtSegment returns the end of a JWT segment of at least ten bytes at
// text[at:], which must start "eyJ" if json is set.
func jwtSegment(text string, at int, json bool) (int, bool) {
	if json && !strings.HasPrefix(text[at:], "eyJ") {
		return 0, false
	}
	n := b64url.run(text, at)
	return at + n, n >= 10
}

// count returns how many bytes of s are in c.
func (c *charset) count(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		if c[s[i]] {
			n++
		}
	}
	return n
}

// passwordAnchor finds "password" by its rarer tail.
var passwordAnchor = anchor{"word", 4}

// netrcRule matches the value of a .netrc password token, `machine
// HOST login USER password VALUE`.
type netrcRule struct{}

// passwordValue holds the bytes of an unquoted config-file password.
var passwordValue = npmrcValue

func (netrcRule) appendMatches(dst []Match, text string, limit int) []Match {
	passwordAnchor.each(text, func(at int) bool {
		valAt := at + len("password")
		if !literalAt(text, at, "password") || !wordStart(text, at) || valAt >= len(text) || (text[valAt] != ' ' && text[valAt] != '\t') {
			return true
		}
		start := skipBlanks(text, valAt)
		end := start + passwordValue.runMax(text, start, maxSecretLen+1)
		if !plausiblePassword(text[start:end]) {
			return true
		}
		window := text[max(0, at-256):at]
		if !strings.Contains(window, "login") || !(strings.Contains(window, "machine") || strings.Contains(window, "default")) {
			return true
		}
		dst = append(dst, Match{Rule: RuleNetrcPassword, Start: start, End: end})
		return len(dst) != limit
	})
	return dst
}

// pypircRule matches the value of a .pypirc password, `password =
// VALUE` in a section for a package index.
type pypircRule struct{}

var pypircContext = []string{"[pypi", "[testpypi", "[distutils", "repository", "__token__"}

func (pypircRule) appendMatches(dst []Match, text string, limit int) []Match {
	passwordAnchor.each(text, func(at int) bool {
		if !literalAt(text, at, "password") || !wordStart(text, at) {
			return true
		}
		eq := skipBlanks(text, at+len("password"))
		if eq >= len(text) || text[eq] != '=' || (eq+1 < len(text) && text[eq+1] == '=') {
			return true
		}
		start := skipBlanks(text, eq+1)
		end := start + passwordValue.runMax(text, start, maxSecretLen+1)
		if !plausiblePassword(text[start:end]) {
			return true
		}
		window := text[max(0, at-512):at]
		found := false
		for _, c := range pypircContext {
			found = found || strings.Contains(window, c)
		}
		if !found {
			return true
		}
		dst = append(dst, Match{Rule: RulePypircPassword, Start: start, End: end})
		return len(dst) != limit
	})
	return dst
}
