package code

import (
	"bytes"
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

// BuildCommand assembles a POSIX sh script from segments in which every
// value is referenced through an environment variable (__gr_v1, __gr_v2…,
// returned in env) instead of being spliced in as text, so quotes, `$(…)`,
// backticks and newlines in values stay literal. The reference is quoted
// to suit where it appears, so a value is always exactly one word:
// `"${__gr_v1}"` where the shell is unquoted (including inside `$(…)` and
// backticks, even within double quotes, since quoting starts afresh
// there), `${__gr_v1}` inside double quotes, and inside single quotes the
// quote is closed, the reference inserted double-quoted, and the quote
// reopened. A `$` written just before a value stays a literal dollar
// rather than joining the reference (`"$$…"` would be the shell's pid).
// NUL bytes in values are dropped (the OS cannot pass them).
func BuildCommand(segments []Segment) (script string, env map[string]string) {
	var b bytes.Buffer
	env = map[string]string{}
	sc := newShellScanner()
	n := 0
	for _, seg := range segments {
		if !seg.IsValue {
			for i := 0; i < len(seg.Literal); i++ {
				sc.feed(seg.Literal[i])
			}
			b.WriteString(seg.Literal)
			continue
		}
		n++
		name := fmt.Sprintf("__gr_v%d", n)
		env[name] = strings.ReplaceAll(seg.Value, "\x00", "")
		sc.writeReference(&b, name)
	}
	return b.String(), env
}

// frameKind is a quoting context of the shell parser.
type frameKind int

const (
	// plain is unquoted text: the top level, or the body of $(…) or `…`.
	plain frameKind = iota
	inSingle
	inDouble
	inSubst
	inBacktick
)

type frame struct {
	kind frameKind
	// depth counts unmatched '(' inside an inSubst frame, so the ')' of a
	// subshell or of $((…)) does not end it.
	depth int
	// rawEscape is a backslash inside an inBacktick frame whose meaning
	// depends on the next byte: backquotes remove it before $, ` and \
	// and keep it otherwise.
	rawEscape bool
}

// shellScanner follows the shell's quoting through literal text, one byte
// at a time, so that a value can be quoted for the context it lands in.
// It models nesting of quotes inside command substitution, which is
// where a flat quote state goes wrong, and comments, whose quotes do not
// count; it does not model here-documents, case patterns or nested
// backquotes.
type shellScanner struct {
	stack []frame // stack[0] is the top level
	// escaped is a pending backslash at the innermost level.
	escaped bool
	// wordStart is set where a '#' would start a comment: at the start of
	// a line or command, after a blank or an operator. comment is set
	// inside one, up to the end of the line.
	wordStart, comment bool
	// escStart is wordStart before a pending backslash.
	escStart bool
	// dollar is set after an unescaped '$' at the innermost level, to see
	// `$(`; lastDollar when that '$' is also the last byte written, which
	// writeReference takes back.
	dollar, lastDollar bool
}

func newShellScanner() *shellScanner {
	return &shellScanner{stack: []frame{{kind: plain}}, wordStart: true}
}

func (s *shellScanner) top() *frame { return &s.stack[len(s.stack)-1] }

func (s *shellScanner) push(k frameKind) { s.stack = append(s.stack, frame{kind: k}) }

func (s *shellScanner) pop() { s.stack = s.stack[:len(s.stack)-1] }

// backtick returns the index of the open `…` frame, or -1.
func (s *shellScanner) backtick() int {
	for i := len(s.stack) - 1; i > 0; i-- {
		if s.stack[i].kind == inBacktick {
			return i
		}
	}
	return -1
}

// feed advances over one byte of literal text. Inside backquotes the byte
// first goes through their backslash removal, then to the shell that
// parses the backquoted command.
func (s *shellScanner) feed(c byte) {
	s.lastDollar = false
	bt := s.backtick()
	if bt < 0 {
		s.inner(c)
		s.lastDollar = c == '$' && s.dollar
		return
	}
	f := &s.stack[bt]
	switch {
	case f.rawEscape:
		f.rawEscape = false
		switch c {
		case '$', '\\':
			s.inner(c)
		case '`':
			// A nested backquote; not tracked, read as an ordinary byte.
			s.inner('_')
		default:
			s.inner('\\')
			s.inner(c)
		}
	case c == '\\':
		f.rawEscape = true
	case c == '`':
		s.stack = s.stack[:bt]
		s.escaped, s.dollar, s.comment, s.wordStart = false, false, false, false
	default:
		s.inner(c)
		s.lastDollar = c == '$' && s.dollar
	}
}

// inner advances the innermost parse over c.
func (s *shellScanner) inner(c byte) {
	afterDollar := s.dollar
	s.dollar = false
	if s.comment {
		// A comment runs to the end of the line; quotes in it are text.
		if c == '\n' {
			s.comment, s.wordStart = false, true
		}
		return
	}
	atWordStart := s.wordStart
	s.wordStart = false
	if s.escaped {
		s.escaped = false
		if c == '\n' {
			// A line continuation vanishes: what follows continues
			// from before the backslash.
			s.wordStart = s.escStart
		}
		return
	}
	top := s.top()
	switch top.kind {
	case inSingle:
		if c == '\'' {
			s.pop()
		}
	case inDouble:
		switch c {
		case '\\':
			s.escaped = true
		case '"':
			s.pop()
		case '`':
			s.push(inBacktick)
			s.wordStart = true
		case '$':
			s.dollar = true
		case '(':
			if afterDollar {
				s.push(inSubst)
				s.wordStart = true
			}
		}
	default: // plain, inSubst, inBacktick: quotes start afresh
		switch c {
		case '#':
			s.comment = atWordStart
		case ' ', '\t', '\n', ';', '&', '|', '<', '>':
			s.wordStart = true
		case '\\':
			s.escaped, s.escStart = true, atWordStart
		case '\'':
			s.push(inSingle)
		case '"':
			s.push(inDouble)
		case '`':
			s.push(inBacktick)
			s.wordStart = true
		case '$':
			s.dollar = true
		case '(':
			if afterDollar {
				s.push(inSubst)
			} else if top.kind == inSubst {
				top.depth++
			}
			s.wordStart = true
		case ')':
			// A subshell's ')' is an operator; the one closing $(…)
			// ends a piece of the word around it.
			s.wordStart = true
			if top.kind == inSubst {
				if top.depth > 0 {
					top.depth--
				} else {
					s.pop()
					s.wordStart = false
				}
			}
		}
	}
}

// writeReference writes the reference to variable name, quoted for the
// current context, and leaves the scanner state as it was: the written
// text is balanced.
func (s *shellScanner) writeReference(b *bytes.Buffer, name string) {
	kind := s.top().kind
	if s.lastDollar {
		// Keep the author's '$' literal: next to the reference it would
		// read `$"…"` or `$${…}`.
		b.Truncate(b.Len() - 1)
		if kind == inDouble {
			b.WriteString(`"'$'"`)
		} else {
			b.WriteString(`'$'`)
		}
	}
	bt := s.backtick()
	switch {
	case bt >= 0 && s.stack[bt].rawEscape:
		// Three more make `\\\\`, which backquotes turn into `\\`: a
		// literal backslash for the inner shell, not an escaped quote.
		b.WriteString(`\\\`)
		s.stack[bt].rawEscape = false
	case s.escaped && bt >= 0:
		b.WriteString(`\\`)
	case s.escaped:
		// A trailing backslash would escape our opening quote; make it a
		// literal backslash instead.
		b.WriteByte('\\')
	}
	s.escaped, s.dollar, s.lastDollar, s.wordStart = false, false, false, false
	switch kind {
	case inSingle:
		b.WriteString(`'"${` + name + `}"'`)
	case inDouble:
		b.WriteString(`${` + name + `}`)
	default:
		b.WriteString(`"${` + name + `}"`)
	}
}
