package protect

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// fold maps s to a case-folded form: two strings that a
// case-insensitive file system treats as the same name fold to the
// same string (for simple folding: "ſ" and "K" included).
func fold(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return strings.ToLower(s)
	}
	return strings.Map(foldRune, s)
}

// foldRune is the lower case of the smallest rune in r's folding orbit,
// so that every rune of an orbit maps to the same one.
func foldRune(r rune) rune {
	m := r
	for c := unicode.SimpleFold(r); c != r; c = unicode.SimpleFold(c) {
		if c < m {
			m = c
		}
	}
	return unicode.ToLower(m)
}

// swapCase turns each letter of s to the other case; a name without
// letters comes back unchanged.
func swapCase(s string) string {
	return strings.Map(func(r rune) rune {
		if u := unicode.ToUpper(r); u != r {
			return u
		}
		return unicode.ToLower(r)
	}, s)
}
