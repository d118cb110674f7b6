package credscan

// charset is a set of bytes, as a table for one-load membership tests.
type charset [256]bool

// newCharset returns the set of the bytes in the ranges and singles of
// spec: "A-Za-z0-9_-" holds letters, digits, '_' and '-' (a '-' that
// ends spec is itself).
func newCharset(spec string) *charset {
	var c charset
	for i := 0; i < len(spec); i++ {
		if i+2 < len(spec) && spec[i+1] == '-' {
			for b := int(spec[i]); b <= int(spec[i+2]); b++ {
				c[b] = true
			}
			i += 2
			continue
		}
		c[spec[i]] = true
	}
	return &c
}

// run returns the length of the run of bytes of c at text[at:].
func (c *charset) run(text string, at int) int {
	return c.runMax(text, at, len(text))
}

// runMax is run counted up to limit: the rules that would reject a
// longer run stop there, so that no hit costs more than a bounded
// stretch of a megabyte of text.
func (c *charset) runMax(text string, at, limit int) int {
	n := 0
	for at+n < len(text) && n < limit && c[text[at+n]] {
		n++
	}
	return n
}

// isAlnum reports whether b is an ASCII letter or digit.
func isAlnum(b byte) bool {
	return 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || '0' <= b && b <= '9'
}

// wordStart reports whether text[at] begins a word: nothing before it
// but a byte that is neither a letter nor a digit.
func wordStart(text string, at int) bool {
	return at == 0 || !isAlnum(text[at-1])
}

// wordEnd reports whether text[at:] ends a word.
func wordEnd(text string, at int) bool {
	return at >= len(text) || !isAlnum(text[at])
}
