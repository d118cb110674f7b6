package value

// MatchingBracket returns the index of the bracket that closes the one at
// s[start] ('(', '[' or '{'), or -1 when it is not closed or a closing
// bracket of the wrong kind comes first. String literals quoted with ',
// " or ` (with backslash escapes) are skipped, so JavaScript source and
// JSON embedded in prose both match correctly.
func MatchingBracket(s string, start int) int {
	if start < 0 || start >= len(s) || closerOf(s[start]) == 0 {
		return -1
	}
	var open []byte
	var quote byte
	for i := start; i < len(s); i++ {
		c := s[i]
		if quote != 0 {
			if c == '\\' {
				i++
			} else if c == quote {
				quote = 0
			}
			continue
		}
		switch c {
		case '"', '\'', '`':
			quote = c
		case '(', '[', '{':
			open = append(open, closerOf(c))
		case ')', ']', '}':
			if open[len(open)-1] != c {
				return -1
			}
			open = open[:len(open)-1]
			if len(open) == 0 {
				return i
			}
		}
	}
	return -1
}

func closerOf(c byte) byte {
	switch c {
	case '(':
		return ')'
	case '[':
		return ']'
	case '{':
		return '}'
	}
	return 0
}
