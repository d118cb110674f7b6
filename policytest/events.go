package policytest

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/guardrun/guardrun/agent"
)

// Step is one event of an events test, with the approver's answer and
// the expectations on its decision.
type Step struct {
	Line  int
	Event agent.Event
	// Answer is the scripted approver's answer to an ask: "once",
	// "always" or "deny"; "" leaves the ask to the host (Outcome ask).
	Answer  string
	Expects []Expect
}

// String renders the event as written, shortened.
func (s *Step) String() string {
	out := "event " + string(s.Event.Kind)
	if s.Event.Tool != "" {
		out += " " + s.Event.Tool
	}
	return out
}

const eventHint = `write event KIND [TOOL] [{ field: value, … }] [=> output] [error "text"], or event KIND "text" for the other kinds, e.g. event tool.before Bash { command: "ls" }`

const eventExpectHint = `expect allow|deny|retry|ask, reason "text"|/re/, decider "guard or rule", class "policy", input { … }, output ["text" | contains "text"], labels includes|excludes "label", context|message contains "text"`

// parseEvents reads an events block from lines[start:] into t: event,
// answer and expect lines until a `]` on a line of its own, whose index
// it returns.
func parseEvents(path string, lines []string, start int, t *Test) (int, error) {
	fail := func(ln, col int, hint, format string, args ...any) error {
		return &ParseError{File: path, Line: ln + 1, Col: col, Msg: fmt.Sprintf(format, args...), Hint: hint}
	}
	var cur *Step
	for i := start; i < len(lines); i++ {
		raw := lines[i]
		line := strings.TrimSpace(raw)
		col := colOf(raw)
		word, rest, _ := strings.Cut(line, " ")
		rest = strings.TrimSpace(rest)
		switch {
		case line == "" || strings.HasPrefix(line, ">>"):
		case line == "]":
			if len(t.Events) == 0 {
				return 0, fail(t.Line-1, 1, eventHint, "events test %q has no event", t.Name)
			}
			return i, nil
		case word == "event":
			sc := &scanner{path: path, lines: lines, ln: i, col: col - 1 + len("event ")}
			st, err := sc.event()
			if err != nil {
				return 0, err
			}
			st.Line = i + 1
			t.Events = append(t.Events, st)
			cur = st
			i = sc.ln
		case word == "answer":
			if cur == nil {
				return 0, fail(i, col, eventHint, "answer before any event")
			}
			switch rest {
			case "once", "always", "deny":
				cur.Answer = rest
			default:
				return 0, fail(i, col+len("answer "), "answer once, answer always or answer deny", "unknown answer %q", rest)
			}
		case word == "expect":
			if cur == nil {
				return 0, fail(i, col, "put each expect line under the event it checks", "expect before any event")
			}
			e, err := parseEventExpect(rest)
			if err != nil {
				return 0, fail(i, col+len("expect "), eventExpectHint, "%v", err)
			}
			e.Line = i + 1
			cur.Expects = append(cur.Expects, e)
		default:
			return 0, fail(i, col, eventHint+"; then answer and expect lines; end the test with ] on a line of its own", "expected event, answer or expect in an events test; got %q", line)
		}
	}
	return 0, fail(t.Line-1, 1, "end the test with ] on a line of its own", "test %q has no closing ] on a line of its own", t.Name)
}

var (
	eventLabelsRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^labels\s+(includes|excludes)\s+"([^"]*)"$`) })
	injectionRe   = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(context|message)\s+(contains\s+)?("(?:[^"\\]|\\.)*")$`)
	})
)

// parseEventExpect reads an expectation of an event's decision.
func parseEventExpect(s string) (Expect, error) {
	switch s {
	case "allow", "deny", "retry", "ask":
		return Expect{What: "decision", Text: s}, nil
	case "input unchanged":
		return Expect{What: "input"}, nil
	}
	if m := eventLabelsRe().FindStringSubmatch(s); m != nil {
		return Expect{What: "labels", Includes: m[1] == "includes", Text: m[2]}, nil
	}
	if m := injectionRe().FindStringSubmatch(s); m != nil {
		text, err := strconv.Unquote(m[3])
		if err != nil {
			return Expect{}, fmt.Errorf("bad string %s: %v", m[3], err)
		}
		return Expect{What: m[1], Text: text, Includes: m[2] != ""}, nil
	}
	word, rest, _ := strings.Cut(s, " ")
	rest = strings.TrimSpace(rest)
	switch word {
	case "input":
		sc := &scanner{lines: []string{rest}}
		v, err := sc.value()
		if err == nil {
			sc.space()
			if !sc.eol() {
				err = fmt.Errorf("unexpected %q after the value", sc.rest())
			}
		}
		if pe, ok := err.(*ParseError); ok {
			return Expect{}, fmt.Errorf("expect input: %s", pe.Msg)
		} else if err != nil {
			return Expect{}, fmt.Errorf("expect input: %v", err)
		}
		m, ok := v.(map[string]any)
		if !ok {
			return Expect{}, fmt.Errorf("expect input wants an object { field: value, … } or unchanged")
		}
		return Expect{What: "input", Value: m, Text: rest}, nil
	case "output":
		if rest == "" {
			break
		}
		if c, ok := strings.CutPrefix(rest, "contains "); ok {
			text, err := strconv.Unquote(strings.TrimSpace(c))
			if err != nil {
				return Expect{}, fmt.Errorf("expect output contains wants a quoted string")
			}
			return Expect{What: "output-contains", Text: text}, nil
		}
		text, err := strconv.Unquote(rest)
		if err != nil {
			return Expect{}, fmt.Errorf("expect output wants a quoted string, got %s", rest)
		}
		return Expect{What: "output", Text: text}, nil
	case "reason":
		if len(rest) >= 2 && rest[0] == '/' && rest[len(rest)-1] == '/' {
			re, err := regexp.Compile(rest[1 : len(rest)-1])
			if err != nil {
				return Expect{}, fmt.Errorf("bad pattern: %v", err)
			}
			return Expect{What: "reason", Re: re}, nil
		}
		fallthrough
	case "decider", "class":
		text, err := strconv.Unquote(rest)
		if err != nil {
			return Expect{}, fmt.Errorf("expect %s wants a quoted string, got %q", word, rest)
		}
		return Expect{What: word, Text: text}, nil
	}
	return Expect{}, fmt.Errorf("unknown expectation %q for an event", s)
}

// scanner reads event lines: values may span lines (an object's fields
// one per line).
type scanner struct {
	path    string
	lines   []string
	ln, col int // 0-based
}

func (s *scanner) errorf(hint, format string, args ...any) error {
	return &ParseError{File: s.path, Line: s.ln + 1, Col: s.col + 1, Msg: fmt.Sprintf(format, args...), Hint: hint}
}

func (s *scanner) eol() bool  { return s.col >= len(s.lines[s.ln]) }
func (s *scanner) peek() byte { return s.lines[s.ln][s.col] }
func (s *scanner) rest() string {
	return s.lines[s.ln][min(s.col, len(s.lines[s.ln])):]
}

// space skips blanks on the current line.
func (s *scanner) space() {
	for !s.eol() && (s.peek() == ' ' || s.peek() == '\t') {
		s.col++
	}
}

// spaceLines skips blanks and line ends (inside a value).
func (s *scanner) spaceLines() bool {
	for {
		s.space()
		if !s.eol() {
			return true
		}
		if s.ln+1 >= len(s.lines) {
			return false
		}
		s.ln, s.col = s.ln+1, 0
	}
}

func (s *scanner) word() string {
	start := s.col
	for !s.eol() {
		c := s.peek()
		if c == ' ' || c == '\t' || c == '{' || c == '"' || c == '\'' {
			break
		}
		s.col++
	}
	return s.lines[s.ln][start:s.col]
}

// event reads `KIND [TOOL] [VALUE] [=> VALUE]` (the scanner starts after
// "event ").
func (s *scanner) event() (*Step, error) {
	st := &Step{}
	s.space()
	kcol := s.col
	kind := agent.Kind(s.word())
	known := false
	for _, k := range agent.Kinds {
		known = known || k == kind
	}
	if !known {
		s.col = kcol
		names := make([]string, len(agent.Kinds))
		for i, k := range agent.Kinds {
			names[i] = string(k)
		}
		return nil, s.errorf("event kinds: "+strings.Join(names, ", "), "unknown event kind %q", kind)
	}
	st.Event.Kind = kind
	s.space()
	tool := kind == agent.ToolBefore || kind == agent.ToolAfter
	if tool {
		if s.eol() || s.peek() == '{' || s.peek() == '"' {
			return nil, s.errorf(eventHint, "%s needs a tool name", kind)
		}
		st.Event.Tool = s.word()
		s.space()
		if !s.eol() && s.peek() == '{' {
			v, err := s.value()
			if err != nil {
				return nil, err
			}
			st.Event.Input = v.(map[string]any)
			s.space()
		}
		if strings.HasPrefix(s.rest(), "=>") {
			if kind != agent.ToolAfter {
				return nil, s.errorf("only tool.after carries an output", "%s has no output", kind)
			}
			s.col += 2
			s.space()
			v, err := s.value()
			if err != nil {
				return nil, err
			}
			st.Event.Output = v
			s.space()
		}
		if strings.HasPrefix(s.rest(), "error ") || s.rest() == "error" {
			if kind != agent.ToolAfter {
				return nil, s.errorf("only tool.after carries a tool's error", "%s has no error", kind)
			}
			s.col += len("error")
			s.space()
			vcol := s.col
			v, err := s.value()
			if err != nil {
				return nil, err
			}
			text, ok := v.(string)
			if !ok {
				s.col = vcol
				return nil, s.errorf(`write the tool's error as a string: error "exit status 1"`, "a tool's error is text")
			}
			st.Event.Error = text
			s.space()
		}
	} else if !s.eol() && (s.peek() == '"' || s.peek() == '\'') {
		v, err := s.value()
		if err != nil {
			return nil, err
		}
		text := v.(string)
		switch kind {
		case agent.SessionStart, agent.SessionEnd, agent.ContextCompress:
			st.Event.Source = text
		default:
			st.Event.Text = text
		}
		s.space()
	}
	if (kind == agent.ModelBefore || kind == agent.ModelAfter) && !s.eol() && s.peek() == '{' {
		if err := s.modelCall(&st.Event); err != nil {
			return nil, err
		}
	}
	if !s.eol() {
		return nil, s.errorf(eventHint, "unexpected %q in the event", s.rest())
	}
	return st, nil
}

// modelCallHint shows a model event's call object.
const modelCallHint = `write the model call as { model: "gemini-2.5-pro", input: 1200, output: 300 } (input and output: the tokens the host reported; leave them out for a host that sends text only)`

// modelCall reads a model event's `{ model, input, output }`: the
// model's name and the tokens the host reported (Event.Usage, set when
// input or output is given).
func (s *scanner) modelCall(ev *agent.Event) error {
	vcol := s.col
	v, err := s.value()
	if err != nil {
		return err
	}
	m := v.(map[string]any)
	bad := func(format string, args ...any) error {
		s.col = vcol
		return s.errorf(modelCallHint, format, args...)
	}
	for k, x := range m {
		switch k {
		case "model":
			name, ok := x.(string)
			if !ok {
				return bad("a model's name is text")
			}
			ev.Model = name
		case "input", "output":
			n, ok := x.(float64)
			if !ok || n < 0 {
				return bad("%s is a number of tokens", k)
			}
			if ev.Usage == nil {
				ev.Usage = &agent.Usage{}
			}
			if k == "input" {
				ev.Usage.Input = int64(n)
			} else {
				ev.Usage.Output = int64(n)
			}
		default:
			return bad("unknown field %q of a model call", k)
		}
	}
	s.space()
	return nil
}

const valueHint = `values are written as in scripts: "text", 'text', 12, true, null, [a, b], { field: value }`

// value reads a string, number, boolean, null, array or object.
func (s *scanner) value() (any, error) {
	if !s.spaceLines() {
		return nil, s.errorf(valueHint, "missing value")
	}
	switch c := s.peek(); {
	case c == '"':
		line := s.lines[s.ln]
		end := s.col + 1
		for end < len(line) && line[end] != '"' {
			if line[end] == '\\' {
				end++
			}
			end++
		}
		if end >= len(line) {
			return nil, s.errorf(valueHint, "unterminated string")
		}
		text, err := strconv.Unquote(line[s.col : end+1])
		if err != nil {
			return nil, s.errorf(valueHint, "bad string %s: %v", line[s.col:end+1], err)
		}
		s.col = end + 1
		return text, nil
	case c == '\'':
		line := s.lines[s.ln]
		end := strings.IndexByte(line[s.col+1:], '\'')
		if end < 0 {
			return nil, s.errorf(valueHint, "unterminated string")
		}
		text := line[s.col+1 : s.col+1+end]
		s.col += end + 2
		return text, nil
	case c == '{':
		return s.object()
	case c == '[':
		return s.array()
	}
	w := s.atom()
	switch w {
	case "true":
		return true, nil
	case "false":
		return false, nil
	case "null":
		return nil, nil
	}
	if n, err := strconv.ParseFloat(w, 64); err == nil && w != "" {
		return n, nil
	}
	s.col -= len(w)
	return nil, s.errorf(valueHint+`; quote text`, "not a value: %q", firstWord(s.rest()))
}

func firstWord(s string) string {
	if i := strings.IndexAny(s, " \t,}]"); i > 0 {
		return s[:i]
	}
	return s
}

func (s *scanner) atom() string {
	start := s.col
	for !s.eol() {
		c := s.peek()
		if !(c == '-' || c == '+' || c == '.' || c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			break
		}
		s.col++
	}
	return s.lines[s.ln][start:s.col]
}

func (s *scanner) object() (any, error) {
	s.col++ // {
	out := map[string]any{}
	for {
		if !s.spaceLines() {
			return nil, s.errorf(valueHint, "unterminated object: missing }")
		}
		if s.peek() == '}' {
			s.col++
			return out, nil
		}
		var key string
		if c := s.peek(); c == '"' || c == '\'' {
			k, err := s.value()
			if err != nil {
				return nil, err
			}
			key = k.(string)
		} else {
			key = s.atom()
			if key == "" {
				return nil, s.errorf(valueHint, "expected a field name, got %q", firstWord(s.rest()))
			}
		}
		s.space()
		if s.eol() || s.peek() != ':' {
			return nil, s.errorf(valueHint, "expected : after field %q", key)
		}
		s.col++
		v, err := s.value()
		if err != nil {
			return nil, err
		}
		out[key] = v
		if !s.spaceLines() {
			return nil, s.errorf(valueHint, "unterminated object: missing }")
		}
		switch s.peek() {
		case ',':
			s.col++
		case '}':
		default:
			return nil, s.errorf(valueHint, "expected , or } after field %q, got %q", key, firstWord(s.rest()))
		}
	}
}

func (s *scanner) array() (any, error) {
	s.col++ // [
	out := []any{}
	for {
		if !s.spaceLines() {
			return nil, s.errorf(valueHint, "unterminated array: missing ]")
		}
		if s.peek() == ']' {
			s.col++
			return out, nil
		}
		v, err := s.value()
		if err != nil {
			return nil, err
		}
		out = append(out, v)
		if !s.spaceLines() {
			return nil, s.errorf(valueHint, "unterminated array: missing ]")
		}
		switch s.peek() {
		case ',':
			s.col++
		case ']':
		default:
			return nil, s.errorf(valueHint, "expected , or ] in an array, got %q", firstWord(s.rest()))
		}
	}
}
