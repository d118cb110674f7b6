package diffmlld

import (
	"context"
	"os"
	"reflect"
	"strings"
	"testing"
)

func TestNormalize(t *testing.T) {
	if got := Normalize("\r\na\r\n\n\n\nb \n\n"); got != "a\n\nb" {
		t.Errorf("Normalize = %q", got)
	}
}

func TestCompare(t *testing.T) {
	ok := func(s string) Outcome { return Outcome{Class: OK, Stdout: s} }
	for _, c := range []struct {
		ours, ref Outcome
		want      Kind
	}{
		{ok("a\n"), ok("a\n\n\n"), Agree},
		{ok("a"), ok("b"), OutputDiffer},
		{Outcome{Class: Parse}, ok(""), OnlyOursErr},
		{ok(""), Outcome{Class: Runtime}, OnlyRefErr},
		{Outcome{Class: Parse}, Outcome{Class: Runtime}, ErrClassDiff},
		{Outcome{Class: Runtime}, Outcome{Class: Runtime}, Agree},
		{Outcome{Class: Timeout}, ok(""), TimeoutDiff},
	} {
		if got := Compare(c.ours, c.ref); got != c.want {
			t.Errorf("Compare(%v, %v) = %q, want %q", c.ours.Class, c.ref.Class, got, c.want)
		}
	}
}

func TestClassifyMlld(t *testing.T) {
	box := "\x1b[90m━━━━\x1b[0m\x1b[34m mlld error \x1b[0m\x1b[90m━━━━\x1b[0m\n"
	for _, c := range []struct {
		exit           int
		stdout, stderr string
		class          Class
		name           string
	}{
		{0, "", "", OK, ""},
		{0, "", "hi from log\n", OK, ""},
		{0, "", box + "  VariableRedefinition: Interpreter error\n", Runtime, "VariableRedefinition"},
		{1, "", box + "  MlldParse: Parse error: Unclosed array\n", Parse, "MlldParse"},
		// A failed `run` is reported on stdout and the script goes on.
		{0, "\n❌ 1 error occurred:\n\n1. Command execution failed:\n" + box + "  MlldCommandExecution: Command execution failed: false\n\nafter\n", "", Runtime, "MlldCommandExecution"},
		// The summary line alone, shown by a script, is output.
		{0, "❌ 1 error occurred:\n", "", OK, ""},
	} {
		o := Outcome{Exit: c.exit, Stdout: c.stdout, Stderr: c.stderr}
		classifyMlld(&o)
		if o.Class != c.class || o.ErrName != c.name {
			t.Errorf("classifyMlld(%d, %q) = %s %q, want %s %q", c.exit, c.stderr, o.Class, o.ErrName, c.class, c.name)
		}
	}
}

func TestClassifyGuardrun(t *testing.T) {
	o := Outcome{Exit: 1, Stdout: `{"document":"a\n","stdout":"a\n","stderr":"","error":{"name":"ParseError","message":"bad"}}`}
	classifyGuardrun(&o)
	if o.Class != Parse || o.ErrName != "ParseError" || o.Stdout != "a\n" {
		t.Errorf("classifyGuardrun = %+v", o)
	}
}

func TestStatements(t *testing.T) {
	src := "var @a = 1\n\n>> note\nwhen [\n  @a => show \"x\"\n]\nshow @a\n"
	want := []string{"var @a = 1", "when [\n  @a => show \"x\"\n]", "show @a"}
	if got := statements(src); !reflect.DeepEqual(got, want) {
		t.Errorf("statements = %q, want %q", got, want)
	}
}

func TestFencedBlocks(t *testing.T) {
	md := "text\n```mlld\nshow \"a\"\n```\n\n  ```mld\n  show \"b\"\n  ```\n```bash\nls\n```\n"
	want := []string{"show \"a\"\n", "show \"b\"\n"}
	if got := fencedBlocks(md); !reflect.DeepEqual(got, want) {
		t.Errorf("fencedBlocks = %q, want %q", got, want)
	}
}

func TestDocSkip(t *testing.T) {
	for src, skipped := range map[string]bool{
		`show "plain"`:                         false,
		`import { @x } from @mlld/core`:        true,
		`var @c = <config.json>`:               true,
		`show @x | @upper`:                     false,
		`var @r = py { print(1) }`:             true,
		"var @x = `a <b> c`":                   false,
		`show "https://example.com/a"`:         true,
		`for @k, @v in @o => show "@k"`:        false,
		`var @t = cmd {curl https://x.test}`:   true,
		`import { topic } from @payload`:       true,
		`show @payload.topic`:                  true,
		"var @payload = \"x\"\nshow @payload":  false,
		"exe @send(url, payload) = `@payload`": false,
		"loop(3) [\n  show @input\n]":          false,
		`policy @p = { signers: {} }`:          true,
		`exe @w(c) = prose:@opus "./w.prose"`:  true,
		"loop until @done [\n  sleep 60\n]":    true,
	} {
		if got := docSkip(src) != ""; got != skipped {
			t.Errorf("docSkip(%q) = %v, want %v", src, got, skipped)
		}
	}
}

// comparable is a program without its Port's expectations (functions,
// which reflect.DeepEqual never finds equal), keeping the row.
func comparable(ps []Program) []Program {
	out := make([]Program, len(ps))
	for i, p := range ps {
		if p.Port != nil {
			p.Port = &Port{Row: p.Port.Row}
		}
		out[i] = p
	}
	return out
}

func TestGenerateReproducible(t *testing.T) {
	a, b := comparable(Generate(3, 50)), comparable(Generate(3, 50))
	if !reflect.DeepEqual(a, b) {
		t.Fatal("the same seed gave different programs")
	}
	if reflect.DeepEqual(a, comparable(Generate(4, 50))) {
		t.Fatal("different seeds gave the same programs")
	}
	tags := map[string]bool{}
	ports := 0
	for _, p := range Generate(1, 2000) {
		for _, tag := range p.Tags {
			tags[tag] = true
		}
		if p.Port != nil {
			ports++
			// A PORT row's program is its production alone.
			if len(p.Tags) != 1 || !strings.HasPrefix(p.Tags[0], "port-") {
				t.Errorf("%s: PORT program with tags %v", p.Name, p.Tags)
			}
		}
	}
	if ports == 0 {
		t.Error("no program exercises a SPEC PORT row")
	}
	if len(tags) != len(productions)+len(portProductions) {
		t.Errorf("2000 programs exercise %d of %d productions", len(tags), len(productions)+len(portProductions))
	}
}

// scriptPeer decides an outcome from the script's text alone.
type scriptPeer func(src string) Outcome

func (f scriptPeer) Run(_ context.Context, _, file string) Outcome {
	b, err := os.ReadFile(file)
	if err != nil {
		return Outcome{Class: Runtime, ErrName: err.Error()}
	}
	return f(string(b))
}

func TestShrink(t *testing.T) {
	ours := scriptPeer(func(src string) Outcome {
		if strings.Contains(src, "BAD") {
			return Outcome{Class: Runtime}
		}
		return Outcome{Class: OK, Stdout: "same"}
	})
	ref := scriptPeer(func(string) Outcome { return Outcome{Class: OK, Stdout: "same"} })
	p := Program{Source: "var @a = 1\nshow @a\nwhen [\n  BAD => 1\n]\nshow \"x\"\nshow \"y\"\n"}
	got := Shrink(context.Background(), ours, ref, p, OnlyOursErr, 50)
	if want := "when [\n  BAD => 1\n]\n"; got.Source != want {
		t.Errorf("Shrink = %q, want %q", got.Source, want)
	}
}

func TestFeature(t *testing.T) {
	for src, want := range map[string]string{
		"for @k, @v in @o => show `@k`": "for over object (key/value, mx.key)",
		"var @x = [...@a]":              "spread",
		"show <notes/*.md>":             "file loading: glob",
		"show `[@s|@upper]`":            "pipe inside interpolation",
		`show "x"`:                      "var / show literal",
	} {
		if got := Feature(src); got != want {
			t.Errorf("Feature(%q) = %q, want %q", src, got, want)
		}
	}
}

func TestComparePort(t *testing.T) {
	p := Program{Port: &Port{Row: "r", Ours: okWith("t:v"), Ref: isParse}}
	documented := ComparePort(p, Outcome{Class: OK, Stdout: "t:v\n"}, Outcome{Class: Parse})
	if documented != Deliberate {
		t.Errorf("the documented difference = %q, want %q", documented, Deliberate)
	}
	// Any other disagreement on a PORT program is a disagreement.
	if k := ComparePort(p, Outcome{Class: OK, Stdout: "other"}, Outcome{Class: Parse}); k != OnlyRefErr {
		t.Errorf("an undocumented difference = %q, want %q", k, OnlyRefErr)
	}
	if k := ComparePort(p, Outcome{Class: OK, Stdout: "x"}, Outcome{Class: OK, Stdout: "x"}); k != Agree {
		t.Errorf("agreement on a PORT program = %q", k)
	}
	s := Summarize("s", []Result{
		{Program: Program{Name: "a"}, Kind: Agree},
		{Program: Program{Name: "b", Port: p.Port}, Kind: Deliberate, Category: "deliberate"},
	}, nil)
	if s.Total != 1 || s.Agreed != 1 || s.Deliberate != 1 {
		t.Errorf("Summarize: total %d agreed %d deliberate %d, want 1 1 1", s.Total, s.Agreed, s.Deliberate)
	}
}
