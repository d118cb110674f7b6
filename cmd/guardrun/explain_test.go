package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

const explainScript = `policy @prod = {
  defaults: { rules: ["no-secret-exfil"] },
  operations: { exfil: ["net:w"] },
  labels: { pii: { deny: ["op:show"] } }
}
var secret @token = "sk-live-42"
exe net:w @post(body) = when [
  denied => "not sent"
  * => ` + "`posted @body`" + `
]
show @post(@token)
guard @noBob before op:show = when [ @input.any.text.includes("bob") => deny "no bob" * => allow ]
show "ok"
var pii @name = "Ada"
show @name
`

func writeScript(t *testing.T, src string) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "x.mld")
	require.NoError(t, os.WriteFile(file, []byte(src), 0o644))
	return file
}

// --explain names the deciding rule, the labels and the targets of every
// denial, handled or not, in the order they happen.
func TestExplainText(t *testing.T) {
	code, stdout, stderr := runCLI("--explain", writeScript(t, explainScript))
	require.Equal(t, exitFail, code)
	require.Equal(t, "not sent\nok\n", stdout)
	require.Contains(t, stderr, "x.mld:11:11 /exe @post: denied by policy @prod (defaults.rules.no-secret-exfil)\n"+
		"    reason: Rule 'no-secret-exfil': label 'secret' cannot flow to 'exfil'\n"+
		"    labels: secret\n"+
		"    flows to: op:exe, net:w, exfil\n")
	require.Contains(t, stderr, "x.mld:15:1 /show (showVariable): denied by policy @prod (labels.pii.deny)\n"+
		"    reason: Label 'pii' cannot flow to 'op:show'\n    labels: pii\n    flows to: op:show\n")
	require.Less(t, strings.Index(stderr, "@post: denied"), strings.Index(stderr, "(showVariable): denied"))
}

func TestExplainWithoutFlagPrintsNothing(t *testing.T) {
	_, _, stderr := runCLI(writeScript(t, explainScript))
	require.NotContains(t, stderr, "[explain]")
}

func TestExplainGuardAndOverrideJSON(t *testing.T) {
	src := `policy @p = { defaults: { rules: ["no-secret-exfil"] } }
guard privileged @pass before op:exe = when [ @mx.op.name == "send" => allow ]
guard @nope before secret = when [ @mx.op.type == "show" => deny "no secret shows" * => allow ]
var secret @k = "s"
exe exfil @send(v) = ` + "`sent`" + `
show @send(@k)
show @k
`
	code, stdout, _ := runCLI("--json", "--explain", writeScript(t, src))
	require.Equal(t, exitFail, code)
	var got struct {
		Explain []map[string]any `json:"explain"`
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &got))
	require.Len(t, got.Explain, 2, stdout)
	require.Equal(t, "override", got.Explain[0]["decision"])
	require.Equal(t, "@pass", got.Explain[0]["by"])
	require.Equal(t, "/exe @send", got.Explain[0]["operation"])
	require.Equal(t, "deny", got.Explain[1]["decision"])
	require.Equal(t, "guard @nope (for data:secret)", got.Explain[1]["decider"])
	// The exe's result carries the secret (and the exe's label), so the
	// show of the call is what @nope refuses.
	require.Equal(t, []any{"secret", "exfil", "src:template"}, got.Explain[1]["labels"])
	require.Equal(t, float64(6), got.Explain[1]["line"])
}
