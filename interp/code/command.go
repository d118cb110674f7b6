package code

import (
	"fmt"
	"strings"
)

// Segment is a piece of a command template: literal shell text written by
// the script author, or (IsValue) an interpolated value that must reach
// the command as data.
type Segment struct {
	Literal string
	Value   string
	IsValue bool
}

// quoteState is where the shell parser is inside the literal text.
type quoteState int

const (
	unquoted quoteState = iota
	inSingle
	inDouble
)

// BuildCommand assembles a POSIX sh script from segments in which every
// value is referenced through an environment variable (__gr_v1, __gr_v2…,
// returned in env) instead of being spliced in as text, so quotes, `$(…)`,
// backticks and newlines in values stay literal. The reference is quoted
// to suit where it appears: `"${__gr_v1}"` outside quotes, `${__gr_v1}`
// inside double quotes, and inside single quotes the quote is closed,
// the reference inserted double-quoted, and the quote reopened. NUL bytes
// in values are dropped (the OS cannot pass them).
func BuildCommand(segments []Segment) (script string, env map[string]string) {
	var b strings.Builder
	env = map[string]string{}
	state := unquoted
	escaped := false
	n := 0
	for _, seg := range segments {
		if !seg.IsValue {
			state, escaped = scanQuotes(seg.Literal, state, escaped)
			b.WriteString(seg.Literal)
			continue
		}
		n++
		name := fmt.Sprintf("__gr_v%d", n)
		env[name] = strings.ReplaceAll(seg.Value, "\x00", "")
		if escaped {
			// A trailing backslash would escape our opening quote; make it
			// a literal backslash instead.
			b.WriteByte('\\')
			escaped = false
		}
		switch state {
		case unquoted:
			b.WriteString(`"${` + name + `}"`)
		case inDouble:
			b.WriteString(`${` + name + `}`)
		case inSingle:
			b.WriteString(`'"${` + name + `}"'`)
		}
	}
	return b.String(), env
}

// scanQuotes advances the quote state over literal shell text. escaped
// reports a backslash at the end that escapes whatever comes next.
func scanQuotes(s string, state quoteState, escaped bool) (quoteState, bool) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if escaped {
			escaped = false
			continue
		}
		switch state {
		case unquoted:
			switch c {
			case '\\':
				escaped = true
			case '\'':
				state = inSingle
			case '"':
				state = inDouble
			}
		case inSingle:
			if c == '\'' {
				state = unquoted
			}
		case inDouble:
			switch c {
			case '\\':
				escaped = true
			case '"':
				state = unquoted
			}
		}
	}
	return state, escaped
}
