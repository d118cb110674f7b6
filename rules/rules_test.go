package rules_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/guardrun/guardrun/agent"
)

// fixture is one rule's tests: the modules loaded (tools.guard always),
// and cases, each a session of events with the outcome of each event.
// An outcome "allow+secret" also wants the label on the decision.
type fixture struct {
	Modules []string `json:"modules"`
	Cases   []struct {
		Name   string        `json:"name"`
		Events []agent.Event `json:"events"`
		Want   []string      `json:"want"`
	} `json:"cases"`
}

// TestRules runs every rule's allow and deny fixtures (testdata/*.json)
// through the agent engine, and checks that every rule module has
// fixtures with at least one allowed and one refused event.
func TestRules(t *testing.T) {
	dir, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	mods, _ := filepath.Glob("*.guard")
	for _, m := range mods {
		name := strings.TrimSuffix(m, ".guard")
		if name == "tools" || name == "policy" {
			continue
		}
		t.Run(name, func(t *testing.T) {
			fx := readFixture(t, name)
			src := "import { @agent } from \"./tools.guard\"\n"
			for _, m := range append([]string{name}, fx.Modules...) {
				src += "import guards from \"./" + m + ".guard\"\n"
			}
			allowed, refused := false, false
			for _, c := range fx.Cases {
				t.Run(c.Name, func(t *testing.T) {
					e, err := agent.New(context.Background(), agent.Config{Dir: dir, Store: agent.NewMemoryStore(),
						Policies: []agent.Policy{{Name: filepath.Join(dir, "fixture.guard"), Source: []byte(src)}}})
					if err != nil {
						t.Fatal(err)
					}
					defer e.Close()
					if len(c.Want) != len(c.Events) {
						t.Fatalf("%d events, %d outcomes", len(c.Events), len(c.Want))
					}
					for i, ev := range c.Events {
						ev.Session = "s-" + c.Name
						d := e.Decide(context.Background(), ev)
						want, label, _ := strings.Cut(c.Want[i], "+")
						if d.Outcome.String() != want || (label != "" && !contains(d.Labels, label)) {
							t.Fatalf("event %d (%s %s %v): got %s %q labels %v, want %s", i, ev.Kind, ev.Tool, ev.Input, d.Outcome, d.Reason, d.Labels, c.Want[i])
						}
						if (ev.Kind == agent.ToolBefore || ev.Kind == agent.AgentStop) && i == len(c.Events)-1 {
							allowed = allowed || d.Outcome == agent.Allow
							refused = refused || d.Outcome != agent.Allow
						}
					}
				})
			}
			if !allowed || !refused {
				t.Errorf("rule %s needs a fixture that ends in an allowed call and one that ends in a refused one", name)
			}
		})
	}
}

// fixtureNames are the rules that have fixtures (testdata/NAME.json).
func fixtureNames() []string {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.json"))
	out := make([]string, len(files))
	for i, f := range files {
		out[i] = strings.TrimSuffix(filepath.Base(f), ".json")
	}
	return out
}

// readFixture reads rule name's fixtures, $RULES made this directory
// (file rules need real paths).
func readFixture(t *testing.T, name string) fixture {
	t.Helper()
	dir, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join("testdata", name+".json"))
	if err != nil {
		t.Fatalf("rule %s has no fixtures: %v", name, err)
	}
	b = []byte(strings.ReplaceAll(string(b), "$RULES", filepath.ToSlash(dir)))
	var fx fixture
	if err := json.Unmarshal(b, &fx); err != nil {
		t.Fatalf("testdata/%s.json: %v", name, err)
	}
	return fx
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestStarterPolicyLoads: the starter policy as `guardrun init` writes it
// compiles and loads with every rule.
func TestStarterPolicyLoads(t *testing.T) {
	dir, _ := filepath.Abs(".")
	pol, err := agent.ReadPolicies(filepath.Join(dir, "policy.guard"))
	if err != nil {
		t.Fatal(err)
	}
	e, err := agent.New(context.Background(), agent.Config{Dir: dir, Store: agent.NewMemoryStore(), Policies: pol})
	if err != nil {
		t.Fatal(err)
	}
	e.Close()
}

// TestRateLimitCountsEveryCall: the web limit counts every call of the
// session, not only the calls it keeps (the latest 1,000): 60 web
// requests, 1,000 reads, and the next web request is still refused.
func TestRateLimitCountsEveryCall(t *testing.T) {
	dir, _ := filepath.Abs(".")
	src := "import { @agent } from \"./tools.guard\"\nimport guards from \"./ratelimit.guard\"\n"
	e, err := agent.New(context.Background(), agent.Config{Dir: dir, Store: agent.NewMemoryStore(),
		Policies: []agent.Policy{{Name: filepath.Join(dir, "fixture.guard"), Source: []byte(src)}}})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	ctx := context.Background()
	web := agent.Event{Kind: agent.ToolBefore, Session: "s", Tool: "WebFetch", Input: map[string]any{"url": "https://docs.example/p", "prompt": "read"}}
	for i := range 60 {
		if d := e.Decide(ctx, web); d.Outcome != agent.Allow {
			t.Fatalf("web request %d: %s %q", i, d.Outcome, d.Reason)
		}
	}
	for range 1000 {
		e.Decide(ctx, agent.Event{Kind: agent.ToolBefore, Session: "s", Tool: "Read", Input: map[string]any{"file_path": "a.go"}})
	}
	d := e.Decide(ctx, web)
	if d.Outcome != agent.Deny || !strings.Contains(d.Reason, "used its web requests") {
		t.Fatalf("web request 61 after 1,000 reads: %s %q", d.Outcome, d.Reason)
	}
}
