package hook_test

import (
	"strings"
	"testing"
)

// A user policy that does not load makes the hook deny with the reason
// every other surface gives (guardrun.Error.Render, one-line form): the
// position, the message, the offending text and the hint, on one line.
func TestFailureReasonIsRenderedError(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      []string
	}{
		{"syntax error", "var @a = 1\nguard @g before op:cmd = when [\n  * => allow @@\n]\n", []string{
			"policy.guard:3:14: Syntax error: unexpected token",
			` — near "* => allow @@"`,
			"; hint: expected: guard [@name] before|after|always",
		}},
		{"unknown exe", "var @x = @nope(\"a\")\n", []string{
			"policy.guard:1:10: Variable not found: nope",
			` — near "var @x = @nope(\"a\")"`,
			"; hint: define it with var",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			p := e.brokenUserPolicy(t, tc.src)
			for prog, args := range map[string][]string{bin: {"hook", "claude"}, slim: {"claude"}} {
				payload := payload(t, "claude", "PreToolUse")
				payload["cwd"] = e.home
				setCommand(payload, "ls")
				r := e.runBin(t, prog, mustJSON(t, payload), args...)
				if r.code != 2 {
					t.Fatalf("%s: want a denial (exit 2), got %s", prog, r)
				}
				reason := strings.TrimSpace(r.stderr)
				if strings.Contains(reason, "\n") {
					t.Errorf("%s: reason spans lines:\n%s", prog, reason)
				}
				for _, w := range append([]string{"guardrun: policy: " + p}, tc.want...) {
					if !strings.Contains(reason, w) {
						t.Errorf("%s: reason lacks %q:\n%s", prog, w, reason)
					}
				}
			}
		})
	}
}
