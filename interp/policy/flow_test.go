package policy

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func in(labels ...string) []string { return labels }

func TestCheckFlowBuiltinRules(t *testing.T) {
	tests := []struct {
		name    string
		rule    string
		inputs  [][]string
		targets []string
		reason  string // "" = allowed
		label   string
		matched string
	}{
		{"secret to exfil", "no-secret-exfil", [][]string{in("secret")}, []string{"exfil"}, "Rule 'no-secret-exfil': label 'secret' cannot flow to 'exfil'", "secret", "exfil"},
		{"secret in second input to exfil:send", "no-secret-exfil", [][]string{in("known"), in("secret")}, []string{"exfil:send"}, "Rule 'no-secret-exfil': label 'secret' cannot flow to 'exfil'", "secret", "exfil"},
		{"secret to show allowed", "no-secret-exfil", [][]string{in("secret")}, []string{"op:show"}, "", "", ""},
		{"public to exfil allowed", "no-secret-exfil", [][]string{in("public")}, []string{"exfil"}, "", "", ""},
		{"exfiltrate is not exfil", "no-secret-exfil", [][]string{in("secret")}, []string{"exfiltrate"}, "", "", ""},
		{"sensitive to exfil", "no-sensitive-exfil", [][]string{in("sensitive")}, []string{"exfil"}, "Rule 'no-sensitive-exfil': label 'sensitive' cannot flow to 'exfil'", "sensitive", "exfil"},
		{"sensitive to op allowed", "no-sensitive-exfil", [][]string{in("sensitive")}, []string{"op:cmd"}, "", "", ""},
		{"send to unknown", "no-send-to-unknown", [][]string{in("untrusted"), in("known")}, []string{"exfil:send"}, "Rule 'no-send-to-unknown': exfil:send destination must carry 'known'", "known", "exfil:send"},
		{"send with no inputs", "no-send-to-unknown", nil, []string{"exfil:send"}, "Rule 'no-send-to-unknown': exfil:send destination must carry 'known'", "known", "exfil:send"},
		{"send to known", "no-send-to-unknown", [][]string{in("known")}, []string{"exfil:send"}, "", "", ""},
		{"send to known:internal", "no-send-to-unknown", [][]string{in("known:internal")}, []string{"exfil:send:email"}, "", "", ""},
		{"plain exfil needs no destination", "no-send-to-unknown", [][]string{in("x")}, []string{"exfil"}, "", "", ""},
		{"send to external", "no-send-to-external", [][]string{in("known")}, []string{"exfil:send"}, "Rule 'no-send-to-external': exfil:send destination must carry 'known:internal'", "known:internal", "exfil:send"},
		{"send internal", "no-send-to-external", [][]string{in("known:internal")}, []string{"exfil:send"}, "", "", ""},
		{"destroy unknown", "no-destroy-unknown", [][]string{in("src:cmd")}, []string{"destructive:targeted"}, "Rule 'no-destroy-unknown': destructive:targeted target must carry 'known'", "known", "destructive:targeted"},
		{"destroy known", "no-destroy-unknown", [][]string{in("known")}, []string{"destructive:targeted"}, "", "", ""},
		{"untargeted destroy", "no-destroy-unknown", nil, []string{"destructive"}, "", "", ""},
		{"untrusted destructive", "no-untrusted-destructive", [][]string{in("untrusted")}, []string{"destructive:targeted"}, "Rule 'no-untrusted-destructive': label 'untrusted' cannot flow to 'destructive'", "untrusted", "destructive"},
		{"trusted destructive", "no-untrusted-destructive", [][]string{in("trusted")}, []string{"destructive"}, "", "", ""},
		{"untrusted privileged", "no-untrusted-privileged", [][]string{in("untrusted")}, []string{"privileged"}, "Rule 'no-untrusted-privileged': label 'untrusted' cannot flow to 'privileged'", "untrusted", "privileged"},
		{"untrusted unprivileged", "no-untrusted-privileged", [][]string{in("untrusted")}, []string{"op:show"}, "", "", ""},
		{"influenced advice", "no-influenced-advice", [][]string{in("influenced")}, []string{"advice"}, "Rule 'no-influenced-advice': label 'influenced' cannot flow to 'advice' — use structured extraction to debias evaluative output", "influenced", "advice"},
		{"plain advice", "no-influenced-advice", [][]string{in("untrusted")}, []string{"advice"}, "", "", ""},
		{"no targets", "no-secret-exfil", [][]string{in("secret")}, nil, "", "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := setOf(t, "p", rules(tc.rule))
			d := s.CheckFlow(Flow{Inputs: tc.inputs, Targets: tc.targets})
			if tc.reason == "" {
				require.Nil(t, d)
				return
			}
			require.NotNil(t, d)
			require.Equal(t, tc.reason, d.Reason)
			require.Equal(t, tc.reason, d.Error())
			require.Equal(t, "defaults.rules."+tc.rule, d.Rule)
			require.Equal(t, tc.label, d.Label)
			require.Equal(t, tc.matched, d.Matched)
			require.Equal(t, []string{"p"}, d.Policies)
			require.False(t, d.Capability)
			require.False(t, d.Locked)
		})
	}
}

func TestCheckFlowRuleOrderAndDetail(t *testing.T) {
	s := &Set{}
	s.Add("a", mustParse(t, obj("locked", true, "defaults", obj("rules", arr("no-untrusted-destructive")))))
	s.Add("b", mustParse(t, rules("no-secret-exfil", "no-untrusted-destructive")))
	d := s.CheckFlow(Flow{Inputs: [][]string{in("secret", "untrusted"), in("secret")}, Targets: []string{"exfil", "destructive", "exfil"}})
	require.NotNil(t, d)
	require.Equal(t, "defaults.rules.no-untrusted-destructive", d.Rule, "rules run in the order they were enabled")
	require.Equal(t, []string{"a", "b"}, d.Policies)
	require.True(t, d.Locked)
	require.Equal(t, []string{"secret", "untrusted"}, d.Inputs)
	require.Equal(t, []string{"exfil", "destructive"}, d.Targets)
}

func TestCheckFlowOperations(t *testing.T) {
	tests := []struct {
		name    string
		policy  any
		inputs  [][]string
		targets []string
		rule    string // "" = allowed
	}{
		{"net:w is exfil", obj("defaults", obj("rules", arr("no-secret-exfil")), "operations", obj("exfil", arr("net:w"))), [][]string{in("secret")}, []string{"op:exe", "net:w"}, "defaults.rules.no-secret-exfil"},
		{"net:w:post refines net:w", obj("defaults", obj("rules", arr("no-secret-exfil")), "operations", obj("exfil", arr("net:w"))), [][]string{in("secret")}, []string{"net:w:post"}, "defaults.rules.no-secret-exfil"},
		{"net:r is not exfil", obj("defaults", obj("rules", arr("no-secret-exfil")), "operations", obj("exfil", arr("net:w"))), [][]string{in("secret")}, []string{"net:r"}, ""},
		{"tool:w is destructive", obj("defaults", obj("rules", arr("no-untrusted-destructive")), "operations", obj("destructive", arr("tool:w"))), [][]string{in("untrusted")}, []string{"tool:w"}, "defaults.rules.no-untrusted-destructive"},
		{"without mapping tool:w is harmless", rules("no-untrusted-destructive"), [][]string{in("untrusted")}, []string{"tool:w"}, ""},
		{"hierarchical exfil:send is exfil", rules("no-secret-exfil"), [][]string{in("secret")}, []string{"exfil:send"}, "defaults.rules.no-secret-exfil"},
		{"mapped category feeds labels rules", obj("labels", obj("pii", obj("deny", arr("exfil"))), "operations", obj("exfil", arr("net:w"))), [][]string{in("pii")}, []string{"net:w"}, "labels.pii.deny"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := setOf(t, "p", tc.policy).CheckFlow(Flow{Inputs: tc.inputs, Targets: tc.targets})
			if tc.rule == "" {
				require.Nil(t, d)
				return
			}
			require.NotNil(t, d)
			require.Equal(t, tc.rule, d.Rule)
		})
	}
}

func TestCheckFlowLabels(t *testing.T) {
	tests := []struct {
		name     string
		policies []any
		inputs   [][]string
		targets  []string
		reason   string
		rule     string
		policy   string
	}{
		{"deny show", []any{"p", obj("labels", obj("pii", obj("deny", arr("op:show"))))}, [][]string{in("pii")}, []string{"op:show"}, "Label 'pii' cannot flow to 'op:show'", "labels.pii.deny", "p"},
		{"deny prefix", []any{"p", obj("labels", obj("secret", obj("deny", arr("op:cmd"))))}, [][]string{in("secret")}, []string{"op:cmd:git:status"}, "Label 'secret' cannot flow to 'op:cmd'", "labels.secret.deny", "p"},
		{"other label passes", []any{"p", obj("labels", obj("pii", obj("deny", arr("op:show"))))}, [][]string{in("public")}, []string{"op:show"}, "", "", ""},
		{"most specific allow wins", []any{"p", obj("labels", obj("secret", obj("deny", arr("op:cmd:git"), "allow", arr("op:cmd:git:status"))))}, [][]string{in("secret")}, []string{"op:cmd", "op:cmd:git", "op:cmd:git:status"}, "", "", ""},
		{"deny wins where allow does not match", []any{"p", obj("labels", obj("secret", obj("deny", arr("op:cmd:git"), "allow", arr("op:cmd:git:status"))))}, [][]string{in("secret")}, []string{"op:cmd", "op:cmd:git", "op:cmd:git:push"}, "Label 'secret' cannot flow to 'op:cmd:git'", "labels.secret.deny", "p"},
		{"equal specificity denies", []any{"p", obj("labels", obj("secret", obj("deny", arr("op:cmd"), "allow", arr("op:show"))))}, [][]string{in("secret")}, []string{"op:cmd", "op:show"}, "Label 'secret' cannot flow to 'op:cmd'", "labels.secret.deny", "p"},
		{"star deny", []any{"p", obj("labels", obj("secret", obj("deny", arr("*"), "allow", arr("op:show"))))}, [][]string{in("secret")}, []string{"op:cmd"}, "Label 'secret' cannot flow to '*'", "labels.secret.deny", "p"},
		{"star deny, specific allow", []any{"p", obj("labels", obj("secret", obj("deny", arr("*"), "allow", arr("op:show"))))}, [][]string{in("secret")}, []string{"op:show"}, "", "", ""},
		// PORT: mlld unions the layers' lists, so b's allow would cancel a's deny.
		{"per-layer: another layer's allow does not cancel a deny", []any{
			"a", obj("labels", obj("secret", obj("deny", arr("op:cmd")))),
			"b", obj("labels", obj("secret", obj("allow", arr("op:cmd:git:status"))))},
			[][]string{in("secret")}, []string{"op:cmd", "op:cmd:git:status"}, "Label 'secret' cannot flow to 'op:cmd'", "labels.secret.deny", "a"},
		{"per-layer: second layer denies", []any{
			"a", obj("labels", obj("secret", obj("deny", arr("op:cmd"), "allow", arr("op:cmd:git:status")))),
			"b", obj("labels", obj("secret", obj("deny", arr("op:cmd:git"))))},
			[][]string{in("secret")}, []string{"op:cmd", "op:cmd:git:status"}, "Label 'secret' cannot flow to 'op:cmd:git'", "labels.secret.deny", "b"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := setOf(t, tc.policies...).CheckFlow(Flow{Inputs: tc.inputs, Targets: tc.targets})
			requireDenial(t, d, tc.reason, tc.rule, []string{tc.policy}, false)
		})
	}
}

func TestCheckFlowUnlabeled(t *testing.T) {
	untrustedDestructive := obj("defaults", obj("rules", arr("no-untrusted-destructive"), "unlabeled", "untrusted"))
	tests := []struct {
		name    string
		policy  any
		inputs  [][]string
		targets []string
		reason  string
	}{
		{"system-only labels count as untrusted", untrustedDestructive, [][]string{in("src:cmd"), in("dir:/tmp")}, []string{"destructive"}, "Rule 'no-untrusted-destructive': label 'untrusted' cannot flow to 'destructive'"},
		{"a user label keeps data trusted", untrustedDestructive, [][]string{in("src:cmd", "reviewed")}, []string{"destructive"}, ""},
		{"no labels at all stay unlabeled-free", untrustedDestructive, [][]string{nil}, []string{"destructive"}, ""},
		{"trusted stance adds nothing", obj("defaults", obj("rules", arr("no-untrusted-destructive"), "unlabeled", "trusted")), [][]string{in("src:cmd")}, []string{"destructive"}, ""},
		{"untrusted added reaches labels rules", obj("defaults", obj("unlabeled", "untrusted"), "labels", obj("untrusted", obj("deny", arr("op:show")))), [][]string{in("src:file")}, []string{"op:show"}, "Label 'untrusted' cannot flow to 'op:show'"},
		{"system label must be explicitly allowed", obj("defaults", obj("unlabeled", "untrusted"), "labels", obj("src:cmd", obj("allow", arr("op:show")))), [][]string{in("src:cmd")}, []string{"op:cmd"}, "Label 'src:cmd' is not explicitly allowed for this operation"},
		{"system label explicitly allowed", obj("defaults", obj("unlabeled", "untrusted"), "labels", obj("src:cmd", obj("allow", arr("op:show")))), [][]string{in("src:cmd")}, []string{"op:show"}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := setOf(t, "p", tc.policy).CheckFlow(Flow{Inputs: tc.inputs, Targets: tc.targets})
			if tc.reason == "" {
				require.Nil(t, d)
				return
			}
			require.NotNil(t, d)
			require.Equal(t, tc.reason, d.Reason)
			require.Contains(t, d.Inputs, "untrusted")
		})
	}
}

func TestInfluenced(t *testing.T) {
	on := rules("untrusted-llms-get-influenced")
	tests := []struct {
		name   string
		policy any
		inputs [][]string
		exe    []string
		want   bool
	}{
		{"untrusted into llm", on, [][]string{in("untrusted")}, []string{"llm"}, true},
		{"untrusted into llm:claude", on, [][]string{nil, in("untrusted")}, []string{"tool", "llm:claude"}, true},
		{"trusted into llm", on, [][]string{in("trusted")}, []string{"llm"}, false},
		{"untrusted into non-llm", on, [][]string{in("untrusted")}, []string{"llmish"}, false},
		{"rule off", rules("no-secret-exfil"), [][]string{in("untrusted")}, []string{"llm"}, false},
		{"unlabeled stance", obj("defaults", obj("rules", arr("untrusted-llms-get-influenced"), "unlabeled", "untrusted")), [][]string{in("src:network")}, []string{"llm"}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, setOf(t, "p", tc.policy).Influenced(tc.inputs, tc.exe))
		})
	}
	require.False(t, (&Set{}).Influenced([][]string{in("untrusted")}, []string{"llm"}))
}

func BenchmarkCheckFlow(b *testing.B) {
	s := &Set{}
	s.Add("base", mustParse(b, obj("defaults", obj("rules", arr("no-secret-exfil", "no-untrusted-destructive", "no-send-to-unknown")), "operations", obj("exfil", arr("net:w"), "destructive", arr("tool:w")))))
	s.Add("team", mustParse(b, obj("labels", obj("pii", obj("deny", arr("op:show", "exfil"), "allow", arr("op:show:redacted")), "secret", obj("deny", arr("op:cmd"))))))
	f := Flow{
		Inputs:  [][]string{in("known", "src:user"), in("internal", "src:file"), in("public")},
		Targets: []string{"op:exe", "tool:r", "net:r"},
	}
	require.Nil(b, s.CheckFlow(f))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if s.CheckFlow(f) != nil {
			b.Fatal("denied")
		}
	}
}
