package conformance

import (
	"regexp"
	"strings"
	"sync"
)

// jsTrim is JavaScript's String.prototype.trim: it strips WhiteSpace and
// LineTerminator code points, a set that differs from unicode.IsSpace
// (U+FEFF is stripped, U+0085 is not).
func jsTrim(s string) string {
	return strings.TrimFunc(s, isJSSpace)
}

func isJSSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', 0x00A0, 0x1680, 0x2028, 0x2029,
		0x202F, 0x205F, 0x3000, 0xFEFF:
		return true
	}
	return r >= 0x2000 && r <= 0x200A
}

var newlineRun = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\n{3,}`) })

// collapseNewlines replaces every run of three or more newlines with two, as
// mlld does when it assembles the document.
func collapseNewlines(s string) string {
	return newlineRun().ReplaceAllString(s, "\n\n")
}

// normalizeStream is the stderr normalisation: CRLF to LF, then trim.
func normalizeStream(s string) string {
	return jsTrim(strings.ReplaceAll(s, "\r\n", "\n"))
}
