package policytest

import (
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// TestSuffix is how decision test files are named.
const TestSuffix = ".test.mld"

// File is a parsed decision test file.
type File struct {
	Path string
	// Use is the policy file the tests run with, relative to the working
	// directory ("" when the file has no use line): the first of Layers.
	Use string
	// Layers are the policies of every use line, in order. Several layer
	// as the hook layers them (the user's policy first, then the
	// workspace's, each from its own folder): events tests run with all
	// of them, script tests with one.
	Layers []string
	Tests  []*Test
}

// Test is one decision test.
type Test struct {
	File string
	Line int
	Name string
	// Kind is the body's kind: "script" (Body) or "events" (Events).
	Kind string
	// Body is the script text; BodyLine is the file line of its first
	// line.
	Body     string
	BodyLine int
	Expects  []Expect
	// Events is an events test's sequence, one session.
	Events []*Step
}

// Expect is one expectation line.
type Expect struct {
	Line int
	// What is "decision", "reason", "decider", "output", "output-contains",
	// "error" or "labels".
	What string
	// Text is the expected decision, text or label.
	Text string
	// Re is set for `expect reason /regexp/`.
	Re *regexp.Regexp
	// Var and Includes are set for label expectations (Var is "" for an
	// event's labels); Includes also marks `context contains`.
	Var      string
	Includes bool
	// Value is the input `expect input { … }` wants.
	Value map[string]any
}

// String renders the expectation as written.
func (e Expect) String() string {
	switch e.What {
	case "decision":
		return "expect " + e.Text
	case "reason":
		if e.Re != nil {
			return "expect reason /" + e.Re.String() + "/"
		}
	case "output-contains":
		return "expect output contains " + strconv.Quote(e.Text)
	case "labels":
		verb := "excludes"
		if e.Includes {
			verb = "includes"
		}
		if e.Var == "" {
			return "expect labels " + verb + " " + strconv.Quote(e.Text)
		}
		return "expect @" + e.Var + ".mx.labels " + verb + " " + strconv.Quote(e.Text)
	case "input":
		if e.Value == nil {
			return "expect input unchanged"
		}
		return "expect input " + e.Text
	case "context", "message":
		if e.Includes {
			return "expect " + e.What + " contains " + strconv.Quote(e.Text)
		}
	}
	return "expect " + e.What + " " + strconv.Quote(e.Text)
}

// ParseError is a malformed test file line.
type ParseError struct {
	File string
	Line int
	Col  int
	Msg  string
	// Hint says how to write it.
	Hint string
}

func (e *ParseError) Error() string {
	msg := fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, max(e.Col, 1), e.Msg)
	if e.Hint != "" {
		msg += "\nhint: " + e.Hint
	}
	return msg
}

// colOf is the 1-based column of the first non-blank character of line.
func colOf(line string) int { return len(line) - len(strings.TrimLeft(line, " \t")) + 1 }

const fileHint = `a test file holds use "policy", test "name" [ … ] or test "name" events [ … ] blocks, expect lines and >> comments`

var (
	useRe    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^use\s+"([^"]+)"$`) })
	testRe   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^test\s+"((?:[^"\\]|\\.)*)"\s*(events\s*)?\[$`) })
	labelsRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^@([A-Za-z_][A-Za-z0-9_]*)\.mx\.labels\s+(includes|excludes)\s+"([^"]*)"$`)
	})
)

// Parse reads a decision test file.
func Parse(path string, src []byte) (*File, error) {
	f := &File{Path: path}
	lines := strings.Split(string(src), "\n")
	fail := func(i int, format string, args ...any) error {
		return &ParseError{File: path, Line: i + 1, Col: colOf(lines[i]), Msg: fmt.Sprintf(format, args...), Hint: fileHint}
	}
	var cur *Test
	for i := 0; i < len(lines); i++ {
		line := strings.TrimSpace(lines[i])
		switch {
		case line == "" || strings.HasPrefix(line, ">>"):
		case useRe().MatchString(line):
			p := useRe().FindStringSubmatch(line)[1]
			if !filepath.IsAbs(p) {
				p = filepath.Join(filepath.Dir(path), p)
			}
			if slices.Contains(f.Layers, p) {
				return nil, fail(i, "%q is already used", p)
			}
			if f.Use == "" {
				f.Use = p
			}
			f.Layers = append(f.Layers, p)
		case testRe().MatchString(line):
			name, err := strconv.Unquote(`"` + testRe().FindStringSubmatch(line)[1] + `"`)
			if err != nil {
				return nil, fail(i, "bad test name: %v", err)
			}
			cur = &Test{File: path, Line: i + 1, Name: name, Kind: "script", BodyLine: i + 2}
			if testRe().FindStringSubmatch(line)[2] != "" {
				cur.Kind = "events"
				next, err := parseEvents(path, lines, i+1, cur)
				if err != nil {
					return nil, err
				}
				i = next
				f.Tests = append(f.Tests, cur)
				continue
			}
			var body []string
			for i++; i < len(lines) && strings.TrimSpace(lines[i]) != "]"; i++ {
				body = append(body, lines[i])
			}
			if i == len(lines) {
				return nil, fail(cur.Line-1, "test %q has no closing ] on a line of its own", name)
			}
			cur.Body = dedent(body)
			f.Tests = append(f.Tests, cur)
		case strings.HasPrefix(line, "expect "):
			if cur == nil {
				return nil, fail(i, "expect before any test")
			}
			if cur.Kind == "events" {
				e := fail(i, "an events test's expectations go inside its block, under the event they check").(*ParseError)
				e.Hint = "move the line up, before the test's closing ], after its event line"
				return nil, e
			}
			e, err := parseExpect(strings.TrimSpace(line[len("expect "):]))
			if err != nil {
				return nil, fail(i, "%v", err)
			}
			e.Line = i + 1
			cur.Expects = append(cur.Expects, e)
		default:
			return nil, fail(i, "expected use \"file\", test \"name\" [, expect … or a >> comment; got %q", line)
		}
	}
	return f, nil
}

func parseExpect(s string) (Expect, error) {
	switch s {
	case "allow", "deny", "retry":
		return Expect{What: "decision", Text: s}, nil
	}
	if m := labelsRe().FindStringSubmatch(s); m != nil {
		return Expect{What: "labels", Var: m[1], Includes: m[2] == "includes", Text: m[3]}, nil
	}
	word, rest, _ := strings.Cut(s, " ")
	rest = strings.TrimSpace(rest)
	switch word {
	case "reason":
		if len(rest) >= 2 && rest[0] == '/' && rest[len(rest)-1] == '/' {
			re, err := regexp.Compile(rest[1 : len(rest)-1])
			if err != nil {
				return Expect{}, fmt.Errorf("bad pattern: %v", err)
			}
			return Expect{What: "reason", Re: re}, nil
		}
	case "output":
		if c, ok := strings.CutPrefix(rest, "contains "); ok {
			text, err := strconv.Unquote(strings.TrimSpace(c))
			if err != nil {
				return Expect{}, fmt.Errorf("expect output contains wants a quoted string")
			}
			return Expect{What: "output-contains", Text: text}, nil
		}
	case "decider", "error":
	default:
		return Expect{}, fmt.Errorf("unknown expectation %q: use allow, deny, retry, reason, decider, output, error or @var.mx.labels includes|excludes", s)
	}
	text, err := strconv.Unquote(rest)
	if err != nil {
		return Expect{}, fmt.Errorf("expect %s wants a quoted string, got %s", word, rest)
	}
	return Expect{What: word, Text: text}, nil
}

// dedent removes the indentation common to the non-blank lines.
func dedent(lines []string) string {
	prefix := -1
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		n := len(l) - len(strings.TrimLeft(l, " \t"))
		if prefix < 0 || n < prefix {
			prefix = n
		}
	}
	var b strings.Builder
	for _, l := range lines {
		if len(l) >= prefix && prefix > 0 {
			l = l[prefix:]
		}
		b.WriteString(strings.TrimRight(l, " \t") + "\n")
	}
	return b.String()
}
