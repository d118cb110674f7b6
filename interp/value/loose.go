package value

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// ParseLooseJSON parses relaxed JSON (JSON5-like): single-quoted strings,
// unquoted keys, trailing commas, comments, leading '+' and bare
// Infinity/NaN.
func ParseLooseJSON(s string) (any, error) {
	p := &looseParser{src: s}
	p.skip()
	v, err := p.value(0)
	if err != nil {
		return nil, err
	}
	p.skip()
	if p.pos < len(p.src) {
		return nil, p.errorf("unexpected %q after the value", p.src[p.pos])
	}
	return v, nil
}

type looseParser struct {
	src string
	pos int
}

func (p *looseParser) errorf(format string, args ...any) error {
	return fmt.Errorf("invalid JSON at offset %d: %s", p.pos, fmt.Sprintf(format, args...))
}

// skip passes over whitespace and // or /* */ comments.
func (p *looseParser) skip() {
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			p.pos++
		case strings.HasPrefix(p.src[p.pos:], "//"):
			end := strings.IndexByte(p.src[p.pos:], '\n')
			if end < 0 {
				p.pos = len(p.src)
			} else {
				p.pos += end + 1
			}
		case strings.HasPrefix(p.src[p.pos:], "/*"):
			end := strings.Index(p.src[p.pos+2:], "*/")
			if end < 0 {
				p.pos = len(p.src)
			} else {
				p.pos += end + 4
			}
		default:
			return
		}
	}
}

func (p *looseParser) value(depth int) (any, error) {
	if depth >= MaxNesting {
		return nil, p.errorf("arrays and objects nested more than %d deep", MaxNesting)
	}
	if p.pos >= len(p.src) {
		return nil, p.errorf("unexpected end of input")
	}
	switch c := p.src[p.pos]; {
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.array(depth)
	case c == '"' || c == '\'':
		return p.str()
	case c == '-' || c == '+' || c == '.' || (c >= '0' && c <= '9'):
		return p.number()
	}
	word := p.ident()
	switch word {
	case "true":
		return true, nil
	case "false":
		return false, nil
	case "null":
		return nil, nil
	case "undefined":
		return Undefined{}, nil
	case "Infinity", "NaN":
		f, _ := strconv.ParseFloat(word, 64)
		return f, nil
	case "":
		return nil, p.errorf("unexpected %q", p.src[p.pos])
	}
	return nil, p.errorf("unexpected word %q", word)
}

func (p *looseParser) ident() string {
	start := p.pos
	for p.pos < len(p.src) {
		r, size := utf8.DecodeRuneInString(p.src[p.pos:])
		if !(r == '_' || r == '$' || unicode.IsLetter(r) || unicode.IsDigit(r)) {
			break
		}
		p.pos += size
	}
	return p.src[start:p.pos]
}

func (p *looseParser) object(depth int) (any, error) {
	p.pos++
	o := NewObject()
	for {
		p.skip()
		if p.pos >= len(p.src) {
			return nil, p.errorf("unterminated object")
		}
		if p.src[p.pos] == '}' {
			p.pos++
			return o, nil
		}
		var key string
		if c := p.src[p.pos]; c == '"' || c == '\'' {
			k, err := p.str()
			if err != nil {
				return nil, err
			}
			key = k.(string)
		} else {
			key = p.ident()
			if key == "" {
				return nil, p.errorf("expected an object key")
			}
		}
		p.skip()
		if p.pos >= len(p.src) || p.src[p.pos] != ':' {
			return nil, p.errorf("expected ':' after key %q", key)
		}
		p.pos++
		p.skip()
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		o.Set(key, v)
		p.skip()
		if p.pos < len(p.src) && p.src[p.pos] == ',' {
			p.pos++
			continue
		}
		if p.pos < len(p.src) && p.src[p.pos] == '}' {
			continue
		}
		return nil, p.errorf("expected ',' or '}' in object")
	}
}

func (p *looseParser) array(depth int) (any, error) {
	p.pos++
	arr := []any{}
	for {
		p.skip()
		if p.pos >= len(p.src) {
			return nil, p.errorf("unterminated array")
		}
		if p.src[p.pos] == ']' {
			p.pos++
			return arr, nil
		}
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		arr = append(arr, v)
		p.skip()
		if p.pos < len(p.src) && p.src[p.pos] == ',' {
			p.pos++
			continue
		}
		if p.pos < len(p.src) && p.src[p.pos] == ']' {
			continue
		}
		return nil, p.errorf("expected ',' or ']' in array")
	}
}

func (p *looseParser) str() (any, error) {
	quote := p.src[p.pos]
	p.pos++
	var b strings.Builder
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		switch {
		case c == quote:
			p.pos++
			return b.String(), nil
		case c == '\\':
			if p.pos+1 >= len(p.src) {
				return nil, p.errorf("unterminated string")
			}
			e := p.src[p.pos+1]
			p.pos += 2
			switch e {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			case 'b':
				b.WriteByte('\b')
			case 'f':
				b.WriteByte('\f')
			case '0':
				b.WriteByte(0)
			case '\n':
			case 'u':
				if p.pos+4 > len(p.src) {
					return nil, p.errorf("bad \\u escape")
				}
				n, err := strconv.ParseUint(p.src[p.pos:p.pos+4], 16, 32)
				if err != nil {
					return nil, p.errorf("bad \\u escape")
				}
				p.pos += 4
				r := rune(n)
				// Join a UTF-16 surrogate pair written as two escapes.
				if r >= 0xD800 && r < 0xDC00 && strings.HasPrefix(p.src[p.pos:], `\u`) && p.pos+6 <= len(p.src) {
					if lo, err := strconv.ParseUint(p.src[p.pos+2:p.pos+6], 16, 32); err == nil && lo >= 0xDC00 && lo < 0xE000 {
						r = (r-0xD800)<<10 + (rune(lo) - 0xDC00) + 0x10000
						p.pos += 6
					}
				}
				b.WriteRune(r)
			default:
				b.WriteByte(e)
			}
		default:
			b.WriteByte(c)
			p.pos++
		}
	}
	return nil, p.errorf("unterminated string")
}

func (p *looseParser) number() (any, error) {
	start := p.pos
	if c := p.src[p.pos]; c == '+' || c == '-' {
		p.pos++
		if strings.HasPrefix(p.src[p.pos:], "Infinity") {
			p.pos += len("Infinity")
			f, _ := strconv.ParseFloat(p.src[start:p.pos], 64)
			return f, nil
		}
	}
	if strings.HasPrefix(p.src[p.pos:], "0x") || strings.HasPrefix(p.src[p.pos:], "0X") {
		p.pos += 2
		hexStart := p.pos
		for p.pos < len(p.src) && strings.IndexByte("0123456789abcdefABCDEF", p.src[p.pos]) >= 0 {
			p.pos++
		}
		n, err := strconv.ParseUint(p.src[hexStart:p.pos], 16, 64)
		if err != nil {
			return nil, p.errorf("bad hex number")
		}
		f := float64(n)
		if p.src[start] == '-' {
			f = -f
		}
		return f, nil
	}
	for p.pos < len(p.src) && strings.IndexByte("0123456789.eE+-", p.src[p.pos]) >= 0 {
		p.pos++
	}
	text := strings.TrimPrefix(p.src[start:p.pos], "+")
	f, err := strconv.ParseFloat(text, 64)
	if err != nil {
		return nil, p.errorf("bad number %q", p.src[start:p.pos])
	}
	return f, nil
}
