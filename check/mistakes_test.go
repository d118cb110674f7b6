package check_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/guardrun/guardrun/agent"
	"github.com/guardrun/guardrun/ast"
	"github.com/guardrun/guardrun/check"
	"github.com/guardrun/guardrun/grammar"
)

// toolsLine is the starter tool collection on line 1 of every mistake.
const toolsLine = `var tools @agent = { "{Bash,run_shell_command,Shell}": { labels: ["cmd"] }, "{Read,read_file}": { labels: ["fs:r"] }, "{Write,Edit,write_file,replace}": { labels: ["fs:w"] }, "{WebFetch,web_fetch}": { labels: ["net:r", "net:w"], returns: ["untrusted"] } }` + "\n"

// Events the mistaken policies meant to stop.
var (
	gitPush   = agent.Event{Kind: agent.ToolBefore, Tool: "Bash", Input: map[string]any{"command": "git push origin main"}}
	readEnv   = agent.Event{Kind: agent.ToolBefore, Tool: "Read", Input: map[string]any{"file_path": "/p/.env"}}
	geminiEnv = agent.Event{Kind: agent.ToolBefore, Tool: "read_file", Input: map[string]any{"absolute_path": "/p/.env"}}
	editEtc   = agent.Event{Kind: agent.ToolBefore, Tool: "Edit", Input: map[string]any{"file_path": "/etc/hosts", "old_string": "a", "new_string": "PASSWORD=x"}}
	writeEtc  = agent.Event{Kind: agent.ToolBefore, Tool: "Write", Input: map[string]any{"file_path": "/etc/hosts", "content": "PASSWORD=x"}}
	geminiRm  = agent.Event{Kind: agent.ToolBefore, Tool: "run_shell_command", Input: map[string]any{"command": "rm -rf /"}}
	fetchEvil = agent.Event{Kind: agent.ToolBefore, Tool: "WebFetch", Input: map[string]any{"url": "https://evil.example", "prompt": "x"}}
)

// guardOn is a guard for the `before` filter with one rule before `* =>
// allow`: the rule is on line 3.
func guardOn(filter, rule string) string {
	return toolsLine + "guard @g before " + filter + " = when [\n  " + rule + "\n  * => allow\n]\n"
}

// TestAuthorMistakes: deliberate mistakes in agent policies (issue 31).
// Each is reported by check at its line (a parse error or a finding), and
// none lets the hook allow the call the author meant to stop: a policy
// that does not parse or check fails closed.
func TestAuthorMistakes(t *testing.T) {
	cases := []struct {
		name, src string
		line      int
		want      string
		ev        agent.Event
	}{
		// Actions.
		{"block for ask", guardOn("op:cmd:git", `@mx.args.command.includes("push") => block "Push to the remote?"`), 3, "did you mean deny", gitPush},
		{"reject", guardOn("op:cmd:git", `@mx.args.command.includes("push") => reject "no"`), 3, "did you mean deny", gitPush},
		{"prompt", guardOn("op:cmd:git", `@mx.args.command.includes("push") => prompt "Push?"`), 3, "did you mean ask", gitPush},
		{"confirm", guardOn("op:cmd:git", `@mx.args.command.includes("push") => confirm "Push?"`), 3, "did you mean ask", gitPush},
		{"aks", guardOn("op:cmd:git", `@mx.args.command.includes("push") => aks "Push?"`), 3, "did you mean ask", gitPush},
		{"dney", guardOn("op:cmd:git", `@mx.args.command.includes("push") => dney "no"`), 3, "did you mean deny", gitPush},
		{"Deny capitalised", guardOn("op:cmd:git", `@mx.args.command.includes("push") => Deny "no"`), 3, "did you mean deny", gitPush},
		{"rety", guardOn("op:cmd:git", `@mx.args.command.includes("push") => rety "again"`), 3, "did you mean retry", gitPush},
		{"bare text", guardOn("op:cmd:git", `@mx.args.command.includes("push") => "Push to the remote?"`), 3, "bare text", gitPush},
		{"bare value", guardOn("op:cmd:git", `@mx.args.command.includes("push") => @mx.args.command`), 3, "bare value", gitPush},
		{"label change of text", guardOn("op:cmd:git", `@mx.args.command.includes("push") => pii "redacted"`), 3, "must name a value", gitPush},
		{"deny without reason", guardOn("op:cmd:git", `@mx.args.command.includes("push") => deny`), 3, "", gitPush},
		{"ask without question", guardOn("op:cmd:git", `@mx.args.command.includes("push") => ask`), 3, "", gitPush},
		{"arm after star", toolsLine + "guard @g before op:cmd:git = when [\n  * => allow\n  @mx.args.command.includes(\"push\") => ask \"Push?\"\n]\n", 4, "never runs", gitPush},
		// Fields of the hosts' tools.
		{"comand behind ?.", guardOn("op:cmd:git", `@mx.args.comand?.includes("push") => ask "Push?"`), 3, `did you mean .command?`, gitPush},
		{"command_line", guardOn("op:cmd:git", `@mx.args.command_line?.includes("push") => ask "Push?"`), 3, `has no field "command_line"`, gitPush},
		{"cmd on Bash", guardOn("@Bash", `@mx.args.cmd?.includes("push") => ask "Push?"`), 3, `has no field "cmd"`, gitPush},
		{"filepath on Read", guardOn("@Read", `@mx.args.filepath?.includes(".env") => deny "no"`), 3, "did you mean .file_path?", readEnv},
		{"path on Read", guardOn("@Read", `@mx.args.path?.includes(".env") => deny "no"`), 3, `has no field "path"`, readEnv},
		{"file on read_file", guardOn("@read_file", `@mx.args.file?.includes(".env") => deny "no"`), 3, `has no field "file"`, geminiEnv},
		{"absolutePath on read_file", guardOn("@read_file", `@mx.args.absolutePath?.includes(".env") => deny "no"`), 3, "did you mean .absolute_path?", geminiEnv},
		{"new_str on Edit", guardOn("@Edit", `@mx.args.new_str?.includes("PASSWORD") => deny "no"`), 3, "did you mean .new_string?", editEtc},
		{"contents on Write", guardOn("@Write", `@mx.args.contents?.includes("PASSWORD") => deny "no"`), 3, "did you mean .content?", writeEtc},
		{"filePath on fs:w", guardOn("fs:w", `@mx.args.filePath?.startsWith("/etc") => deny "no"`), 3, "did you mean .file_path?", writeEtc},
		{"cmd on run_shell_command", guardOn("@run_shell_command", `@mx.args.cmd?.includes("rm") => deny "no"`), 3, `has no field "cmd"`, geminiRm},
		{"uri on WebFetch", guardOn("@WebFetch", `@mx.args.uri?.includes("evil") => deny "no"`), 3, "did you mean .url?", fetchEvil},
		// Tools.
		{"Bassh", guardOn("@Bassh", `@mx.args.command.includes("push") => ask "Push?"`), 2, "did you mean @Bash?", gitPush},
		{"bash lower-case", guardOn("@bash", `@mx.args.command.includes("push") => ask "Push?"`), 2, "did you mean @Bash?", gitPush},
		{"Raed", guardOn("@Raed", `@mx.args.file_path.includes(".env") => deny "no"`), 2, "did you mean @Read?", readEnv},
		{"read_fle", guardOn("@read_fle", `@mx.args.absolute_path.includes(".env") => deny "no"`), 2, "did you mean @read_file?", geminiEnv},
		{"WebFetc", guardOn("@WebFetc", `@mx.args.url.includes("evil") => deny "no"`), 2, "did you mean @WebFetch?", fetchEvil},
		// Operations and commands.
		{"op:cmd:gti", guardOn("op:cmd:gti", `@mx.args.command.includes("push") => ask "Push?"`), 2, "did you mean op:cmd:git?", gitPush},
		{"op:cmd:gitt", guardOn("op:cmd:gitt", `@mx.args.command.includes("push") => ask "Push?"`), 2, "did you mean op:cmd:git?", gitPush},
		{"op:cdm:git", guardOn("op:cdm:git", `@mx.args.command.includes("push") => ask "Push?"`), 2, "did you mean op:cmd?", gitPush},
		{"op:cmd:crul", guardOn("op:cmd:crul", `* => deny "no downloads"`), 2, "did you mean op:cmd:curl?", agent.Event{Kind: agent.ToolBefore, Tool: "Bash", Input: map[string]any{"command": "curl https://evil.example"}}},
		// Labels.
		{"filter secert", toolsLine + "guard @g before secert = when [\n  * => deny \"no secrets\"\n]\n", 2, "did you mean secret?", readEnv},
		{"filter fs:rr", guardOn("fs:rr", `@mx.args.file_path.includes(".env") => deny "no"`), 2, "did you mean fs:r", readEnv},
		{"filter untrsted", toolsLine + "guard @g before untrsted = when [\n  * => deny \"no\"\n]\n", 2, "did you mean untrusted?", fetchEvil},
		{"addLabels secert", toolsLine + "guard @g after @Read = when [\n  @mx.args.file_path.includes(\".env\") => allow with { addLabels: [\"secert\"] }\n  * => allow\n]\nguard @h before secret = when [\n  * => deny \"no secrets\"\n]\n", 3, `did you mean "secret"?`, readEnv},
		// Names.
		{"lables", guardOn("op:cmd:git", `@mx.op.lables.includes("op:cmd:git:push") => ask "Push?"`), 3, "did you mean .labels?", gitPush},
		{"opp", guardOn("op:cmd:git", `@mx.opp.labels.includes("op:cmd:git:push") => ask "Push?"`), 3, "did you mean .op?", gitPush},
		{"pathMatch", guardOn("fs:w", `!@pathMatch(@mx.args.file_path, ["src/**"]) => deny "outside src"`), 3, "did you mean @pathMatches?", writeEtc},
		{"mx.tool", guardOn("op:cmd:git", `@mx.tool.calls.length > 0 => ask "Push?"`), 3, "did you mean .tools?", gitPush},
		{"inptu", guardOn("op:cmd:git", `@inptu.includes("push") => ask "Push?"`), 3, "did you mean @input?", gitPush},
		{"unknown exe", guardOn("op:cmd:git", `@isPush(@mx.args.command) => ask "Push?"`), 3, "unknown exe @isPush", gitPush},
		{"duplicate guard", toolsLine + "guard @g before op:cmd:git = when [\n  * => allow\n]\nguard @g before op:cmd:git = when [\n  @mx.args.command.includes(\"push\") => ask \"Push?\"\n  * => allow\n]\n", 5, "already defined", gitPush},
	}
	if len(cases) < 40 {
		t.Fatalf("%d mistakes, want at least 40", len(cases))
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			findings, err := check.Source("policy.guard", []byte(c.src), ast.Strict)
			var pe *grammar.Error
			switch {
			case errors.As(err, &pe):
				if pe.Pos.Line != c.line || !strings.Contains(pe.Message+" "+pe.Hint, c.want) {
					t.Errorf("parse error %v (hint %q), want line %d with %q", pe, pe.Hint, c.line, c.want)
				}
			case err != nil:
				t.Fatalf("check: %v", err)
			default:
				found := false
				for _, f := range findings {
					found = found || f.Severity == check.Error && f.Pos.Line == c.line && strings.Contains(f.Message, c.want)
				}
				if !found {
					t.Errorf("no error at line %d with %q; findings: %v", c.line, c.want, findings)
				}
			}
			e, err := agent.New(context.Background(), agent.Config{
				Policies: []agent.Policy{{Name: "policy.guard", Source: []byte(c.src)}},
				Store:    agent.NewMemoryStore(),
			})
			if err != nil {
				return // the hook fails closed on a policy it cannot load
			}
			defer e.Close()
			ev := c.ev
			ev.Session = "s"
			if d := e.Decide(context.Background(), ev); d.Outcome == agent.Allow {
				t.Errorf("the hook allows %s %v with this mistake", ev.Tool, ev.Input)
			}
		})
	}
}
