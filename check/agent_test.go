package check_test

import (
	"context"
	"strings"
	"testing"

	"github.com/guardrun/guardrun/agent"
	"github.com/guardrun/guardrun/ast"
	"github.com/guardrun/guardrun/check"
	"github.com/guardrun/guardrun/grammar"
	"github.com/guardrun/guardrun/lang"
)

// Every builtin the evaluator has is known to check, in a script and in
// an agent policy's guard (issue 31: "unknown exe @pathMatches").
func TestCheckKnowsEveryEvaluatorBuiltin(t *testing.T) {
	for _, name := range lang.Builtins() {
		for _, file := range []string{"s.mld", "p.guard"} {
			src := "guard @g before op:cmd = when [\n  @" + name + "(@mx.args.command) == \"x\" => deny \"no\"\n  @" + name + " == \"y\" => deny \"no\"\n  * => allow\n]\n"
			fs, err := check.Source(file, []byte(src), ast.Strict)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			for _, f := range fs {
				if f.Kind == check.KindUnknownName {
					t.Errorf("%s in %s: %v", name, file, f)
				}
			}
		}
	}
}

// The starter rules' world: the agent builtins, @mx.tools, the hosts'
// tools and labels, agent operations. A correct policy has no error and
// loads in the engine, which then stops what it should.
func TestCheckAgentPolicyWorld(t *testing.T) {
	src := toolsLine + `guard @push before op:cmd:git = when [
  @mx.args.command?.includes("push") && @mx.tools.calls.length >= 0 => ask "Push to the remote?"
  * => allow
]
guard @keys after @Read = when [
  @mx.args.file_path.includes(".env") => allow with { addLabels: ["secret"] }
  * => allow
]
guard @gem after @read_file = when [
  @mx.args.absolute_path?.includes(".env") => allow with { addLabels: ["secret"] }
  * => allow
]
guard @scope before fs:w = when [
  !@pathMatches(@mx.args.file_path, ["src/**"]) => ask "outside src?"
  * => allow
]
guard @stale before @Edit = when [
  @sha256(@readWorkspaceFile(@mx.args.file_path)) == "" => deny "stale"
  * => allow
]
guard @stop before op:stop = when [
  @mx.args.stopActive => allow
  * => allow
]
guard @mcp before @mcp__github__create_issue = when [
  @mx.args.anything?.includes("x") => deny "no"
  * => allow
]
`
	fs, err := check.Source("policy.guard", []byte(src), ast.Strict)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fs {
		if f.Severity == check.Error {
			t.Errorf("unexpected %v", f)
		}
	}
	e, err := agent.New(context.Background(), agent.Config{Policies: []agent.Policy{{Name: "policy.guard", Source: []byte(src)}}, Store: agent.NewMemoryStore()})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	ev := gitPush
	ev.Session = "s"
	if d := e.Decide(context.Background(), ev); d.Outcome != agent.Ask {
		t.Fatalf("git push: %s %q", d.Outcome, d.Reason)
	}
}

// An engine refuses a policy with a mistake that fails open, naming it.
func TestEngineRefusesFailOpenMistake(t *testing.T) {
	src := guardOn("op:cmd:git", `@mx.args.comand?.includes("push") => ask "Push?"`)
	_, err := agent.New(context.Background(), agent.Config{Policies: []agent.Policy{{Name: "policy.guard", Source: []byte(src)}}, Store: agent.NewMemoryStore()})
	if err == nil || !strings.Contains(err.Error(), `policy.guard:3:11: error: @mx.args of a command tool has no field "comand"`) || !strings.Contains(err.Error(), "did you mean .command?") {
		t.Fatalf("got %v", err)
	}
}

// A command or label an edit from a known one may be one of its own
// (rake, tree, pkill; a label "api"): it is a warning, not a refused
// policy; a slip of the keys (gti, gitt, secert) is an error.
func TestNearNamesThatAreNoSlip(t *testing.T) {
	for _, c := range []struct {
		filter string
		sev    check.Severity
	}{
		{"op:cmd:rake", check.Warning}, {"op:cmd:tree", check.Warning}, {"op:cmd:pkill", check.Warning},
		{"op:cmd:gti", check.Error}, {"op:cmd:gitt", check.Error},
		{"op:cmd:pytest", ""},
	} {
		src := guardOn(c.filter, `* => deny "no"`)
		fs, err := check.Source("p.guard", []byte(src), ast.Strict)
		if err != nil {
			t.Fatal(err)
		}
		var got check.Severity
		for _, f := range fs {
			if f.Pos.Line == 2 {
				got = f.Severity
			}
		}
		if got != c.sev {
			t.Errorf("%s: got %q, want %q (%v)", c.filter, got, c.sev, fs)
		}
		_, err = agent.New(context.Background(), agent.Config{Policies: []agent.Policy{{Name: "p.guard", Source: []byte(strings.Replace(src, "  * => allow\n", "", 1))}}, Store: agent.NewMemoryStore()})
		if (err != nil) != (c.sev == check.Error) {
			t.Errorf("%s: engine load error %v", c.filter, err)
		}
	}
}

// A tool of one's own near a host's (Grip, Grep) is no typo when a tool
// collection in scope declares it: the policy's own, an imported
// module's, or the user policy's a workspace policy is layered under.
func TestOwnToolsInScope(t *testing.T) {
	ws := "guard @g before @Grip = when [\n  @mx.args.q?.includes(\"x\") => deny \"no\"\n  * => allow\n]\n"
	fs, _ := check.Source("ws.guard", []byte(ws), ast.Strict)
	if !check.HasErrors(fs) {
		t.Fatalf("alone, @Grip is a typo of @Grep: %v", fs)
	}
	doc := mustParse(t, ws)
	if fs := check.AgentDocument(doc, "{Grip,Grap}"); check.HasErrors(fs) {
		t.Fatalf("declared in scope: %v", fs)
	}
	user := "var tools @agent = { Grip: { labels: [\"fs:r\"] } }\n"
	e, err := agent.New(context.Background(), agent.Config{Policies: []agent.Policy{{Name: "user.guard", Source: []byte(user)}, {Name: "ws.guard", Source: []byte(ws)}}, Store: agent.NewMemoryStore()})
	if err != nil {
		t.Fatalf("layered under the user's collection: %v", err)
	}
	e.Close()
	if _, err := agent.New(context.Background(), agent.Config{Policies: []agent.Policy{{Name: "ws.guard", Source: []byte(ws)}}, Store: agent.NewMemoryStore()}); err == nil {
		t.Fatal("alone, the engine loads a guard on @Grip")
	}
}

func mustParse(t *testing.T, src string) *ast.Document {
	t.Helper()
	doc, err := grammar.Parse("ws.guard", []byte(src), ast.Strict)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}
