package agent_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/guardrun/guardrun/agent"
)

// TestOpEffects: a guard reads `@mx.op.effects`, what the line will do as
// bash expands it, whatever the spelling: the files it reads (braces
// resolved against the working directory), the network it reaches, the
// programs it runs, what it deletes outside the workspace.
func TestOpEffects(t *testing.T) {
	ws := t.TempDir()
	home := t.TempDir()
	t.Setenv("HOME", home)
	if err := os.WriteFile(filepath.Join(ws, "README.md"), []byte("# x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	readme := filepath.Join(ws, "README.md")
	policy := fmt.Sprintf(`var tools @agent = { "Bash": { labels: ["cmd"] } }
export { @agent }
guard @effects before op:cmd = when [
  @mx.op.effects.deletesOutside => deny "deletes outside"
  @mx.op.effects.network && @mx.op.effects.programs.includes("curl") => deny "reaches the network with curl"
  @mx.op.effects.reads.includes(%q) => deny "reads the readme"
  @mx.op.effects.code => deny "runs code"
  * => allow
]
`, readme)
	e, err := agent.New(context.Background(), agent.Config{Policies: []agent.Policy{{Name: "p.guard", Source: []byte(policy)}},
		Store: agent.NewMemoryStore(), Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	for line, want := range map[string]string{
		"cat READ{ME,ME}.md":          "reads the readme",
		`f=READ; cat "${f}ME.md"`:     "reads the readme",
		"cat R*.md":                   "reads the readme",
		"cat NOTES.md":                "",
		"ls -la":                      "",
		`c\url https://x.example`:     "reaches the network with curl",
		`"cur"l -s https://x.example`: "reaches the network with curl",
		"rm -rf ~{,}":                 "deletes outside",
		`d=$HOME; rm -rf "$d"`:        "deletes outside",
		"rm -rf build{,}":             "",
		`python3 -c 'print(1)'`:       "runs code",
		`echo "$(printf ls)"`:         "",
	} {
		d := e.Decide(context.Background(), agent.Event{Kind: agent.ToolBefore, Session: "s", Tool: "Bash", Cwd: ws, Input: map[string]any{"command": line}})
		got := ""
		if d.Outcome != agent.Allow {
			got = d.Reason
		}
		if want == "" && got != "" || want != "" && !strings.Contains(got, want) {
			t.Errorf("%s: got %s %q, want %q", line, d.Outcome, got, want)
		}
	}
}
