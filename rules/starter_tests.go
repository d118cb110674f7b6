package rules

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/guardrun/guardrun/agent"
)

// fixtures are the rules' allow and deny fixtures, the one source of
// their tests: rules_test.go runs them through the agent engine, and
// TestFiles turns them into event tests that `guardrun init` installs.
//
//go:embed testdata/*.json
var fixtures embed.FS

// TestFiles returns the rules' fixtures (testdata/NAME.json) as event
// tests that `guardrun test` runs: for each rule, NAME.test.mld and the
// policy it uses, NAME.testpolicy.guard (the rule and the modules its
// fixtures name), keyed by name in the folder the rules are
// installed in (imports stay inside it). cases is the number of tests
// written. A case that cannot run there is left out with a comment
// saying why: one the event-test format cannot state (an agent.stop
// with stop_active), and one that uses a file of the rules' source tree
// ($RULES/testdata/…), which is not installed (and could not be put
// beside the rules: guardrun protects its own folder from the agent).
func TestFiles() (files map[string][]byte, cases int, err error) {
	names, err := fs.Glob(fixtures, "testdata/*.json")
	if err != nil {
		return nil, 0, err
	}
	sort.Strings(names)
	files = map[string][]byte{}
	for _, n := range names {
		rule := strings.TrimSuffix(path.Base(n), ".json")
		b, _ := fixtures.ReadFile(n)
		pol, test, k, err := convertFixture(rule, b)
		if err != nil {
			return nil, 0, fmt.Errorf("rules/%s: %w", n, err)
		}
		files[rule+".testpolicy.guard"] = pol
		files[rule+".test.mld"] = test
		cases += k
	}
	return files, cases, nil
}

type fixtureFile struct {
	Modules []string `json:"modules"`
	Cases   []struct {
		Name   string                       `json:"name"`
		Events []map[string]json.RawMessage `json:"events"`
		Want   []string                     `json:"want"`
	} `json:"cases"`
}

// convertFixture writes one rule's fixtures as a policy and its event
// tests.
func convertFixture(rule string, b []byte) (pol, test []byte, cases int, err error) {
	var fx fixtureFile
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&fx); err != nil {
		return nil, nil, 0, err
	}
	var p bytes.Buffer
	fmt.Fprintf(&p, ">> The policy %s.test.mld runs with: %s.guard and the modules its\n>> tests need. Written by guardrun init from the starter's fixtures.\n", rule, rule)
	p.WriteString("import { @agent } from \"./tools.guard\"\n")
	for _, m := range append([]string{rule}, fx.Modules...) {
		fmt.Fprintf(&p, "import guards from \"./%s.guard\"\n", m)
	}
	var t bytes.Buffer
	fmt.Fprintf(&t, ">> The starter's tests of %s.guard (each test one session), written by\n>> guardrun init. Run with: guardrun test %s.test.mld\n", rule, rule)
	fmt.Fprintf(&t, "use %q\n", rule+".testpolicy.guard")
cases:
	for _, c := range fx.Cases {
		if len(c.Want) != len(c.Events) {
			return nil, nil, 0, fmt.Errorf("case %q: %d events, %d outcomes", c.Name, len(c.Events), len(c.Want))
		}
		var body bytes.Buffer
		for i, ev := range c.Events {
			line, skip, err := eventLine(ev)
			if err != nil {
				return nil, nil, 0, fmt.Errorf("case %q, event %d: %w", c.Name, i, err)
			}
			if skip != "" {
				fmt.Fprintf(&t, "\n>> not stated here: %q (%s)\n", c.Name, skip)
				continue cases
			}
			fmt.Fprintf(&body, "  event %s\n", line)
			want, label, _ := strings.Cut(c.Want[i], "+")
			fmt.Fprintf(&body, "    expect %s\n", want)
			if label != "" {
				fmt.Fprintf(&body, "    expect labels includes %q\n", label)
			}
		}
		fmt.Fprintf(&t, "\ntest %s events [\n%s]\n", strconv.Quote(c.Name), body.String())
		cases++
	}
	return p.Bytes(), t.Bytes(), cases, nil
}

// eventLine is one fixture event in the event-test syntax:
// `KIND [TOOL] [{ input }] [=> output] [error "text"]`, or a text and a
// model call for the other kinds. skip says why the event cannot be
// stated.
func eventLine(ev map[string]json.RawMessage) (line, skip string, err error) {
	str := func(k string) (string, error) {
		var s string
		if raw, ok := ev[k]; ok {
			if err := json.Unmarshal(raw, &s); err != nil {
				return "", fmt.Errorf("%s: %w", k, err)
			}
		}
		return s, nil
	}
	for k := range ev {
		switch k {
		case "input":
			if bytes.Contains(ev[k], []byte("$RULES")) {
				return "", "it uses a file of the rules' source tree, $RULES/testdata, which is not installed", nil
			}
		case "event", "tool", "output", "error", "text", "source", "model", "usage", "call_id":
			// call_id only names the call in the record.
		case "stop_active":
			return "", "stop_active cannot be written in an event test", nil
		default:
			return "", "", fmt.Errorf("field %q has no event-test form", k)
		}
	}
	kind, err := str("event")
	if err != nil {
		return "", "", err
	}
	var b strings.Builder
	b.WriteString(kind)
	switch agent.Kind(kind) {
	case agent.ToolBefore, agent.ToolAfter:
		tool, err := str("tool")
		if err != nil {
			return "", "", err
		}
		b.WriteString(" " + tool)
		if raw, ok := ev["input"]; ok {
			b.WriteString(" ")
			if err := writeValue(&b, raw); err != nil {
				return "", "", err
			}
		}
		if raw, ok := ev["output"]; ok {
			b.WriteString(" => ")
			if err := writeValue(&b, raw); err != nil {
				return "", "", err
			}
		}
		if _, ok := ev["error"]; ok {
			e, err := str("error")
			if err != nil {
				return "", "", err
			}
			b.WriteString(" error " + strconv.Quote(e))
		}
	default:
		text, err := str("text")
		if err != nil {
			return "", "", err
		}
		if src, err := str("source"); err != nil {
			return "", "", err
		} else if src != "" {
			text = src
		}
		if text != "" {
			b.WriteString(" " + strconv.Quote(text))
		}
		model, err := str("model")
		if err != nil {
			return "", "", err
		}
		var u agent.Usage
		_, hasUsage := ev["usage"]
		if hasUsage {
			if err := json.Unmarshal(ev["usage"], &u); err != nil {
				return "", "", fmt.Errorf("usage: %w", err)
			}
		}
		if model != "" || hasUsage {
			fields := []string{}
			if model != "" {
				fields = append(fields, "model: "+strconv.Quote(model))
			}
			if hasUsage {
				fields = append(fields, fmt.Sprintf("input: %d, output: %d", u.Input, u.Output))
			}
			b.WriteString(" { " + strings.Join(fields, ", ") + " }")
		}
	}
	return b.String(), "", nil
}

// bareKey reports whether an object key can be written unquoted.
func bareKey(k string) bool {
	for i, c := range k {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return k != ""
}

// writeValue writes a JSON value in the event-test syntax (values as in
// scripts: Go-quoted strings, numbers as written, { key: value }).
func writeValue(b *strings.Builder, raw json.RawMessage) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return err
	}
	write(b, v)
	return nil
}

func write(b *strings.Builder, v any) {
	switch x := v.(type) {
	case string:
		b.WriteString(strconv.Quote(x))
	case json.Number:
		b.WriteString(x.String())
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case nil:
		b.WriteString("null")
	case []any:
		b.WriteString("[")
		for i, e := range x {
			if i > 0 {
				b.WriteString(", ")
			}
			write(b, e)
		}
		b.WriteString("]")
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b.WriteString("{")
		for i, k := range keys {
			if i > 0 {
				b.WriteString(",")
			}
			if bareKey(k) {
				b.WriteString(" " + k)
			} else {
				b.WriteString(" " + strconv.Quote(k))
			}
			b.WriteString(": ")
			write(b, x[k])
		}
		b.WriteString(" }")
	}
}
