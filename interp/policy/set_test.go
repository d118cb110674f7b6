package policy

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/guardrun/guardrun/interp/value"
)

func TestSetComposition(t *testing.T) {
	s := &Set{}
	require.False(t, s.Active())
	require.False(t, s.HasFlowRules())
	require.Zero(t, s.Timeout())
	require.Empty(t, s.Configs().Keys)

	s.Add("p1", mustParse(t, obj("allow", obj("cmd", arr("echo", "jq")), "deny", obj("cmd", arr("rm")), "limits", obj("timeout", 1000.0))))
	s.Add("p2", mustParse(t, obj("allow", obj("cmd", arr("echo")), "deny", obj("cmd", arr("mv")), "limits", obj("timeout", 500.0))))
	require.True(t, s.Active())
	require.False(t, s.HasFlowRules())
	require.False(t, s.Locked())
	require.Equal(t, []string{"p1", "p2"}, s.Names())
	require.Equal(t, 500.0, s.Timeout())

	cfg := s.Configs()
	require.Equal(t, []string{"allow", "deny", "limits"}, cfg.Keys)
	allow, _ := cfg.Get("allow")
	require.Equal(t, []any{"echo"}, allow.(*value.Object).Values["cmd"])
	deny, _ := cfg.Get("deny")
	require.Equal(t, []any{"rm", "mv"}, deny.(*value.Object).Values["cmd"])
	limits, _ := cfg.Get("limits")
	require.Equal(t, 500.0, limits.(*value.Object).Values["timeout"])
}

func TestSetUnionLayersUnderOneName(t *testing.T) {
	s := &Set{}
	s.Add("merged", mustParse(t, rules("no-secret-exfil")), mustParse(t, obj("locked", true, "defaults", obj("unlabeled", "untrusted", "rules", arr("no-sensitive-exfil", "no-secret-exfil")))))
	s.Add("merged", mustParse(t, obj("defaults", obj("unlabeled", "trusted"))))
	require.Equal(t, []string{"merged"}, s.Names())
	require.True(t, s.Locked())
	require.True(t, s.HasFlowRules())

	cfg := s.Configs()
	require.Equal(t, []string{"locked", "defaults"}, cfg.Keys)
	d, _ := cfg.Get("defaults")
	require.Equal(t, []any{"no-secret-exfil", "no-sensitive-exfil"}, d.(*value.Object).Values["rules"])
	require.Equal(t, "untrusted", d.(*value.Object).Values["unlabeled"], "untrusted wins the merge")
}

func TestConfigsFullMerge(t *testing.T) {
	s := &Set{}
	s.Add("a", mustParse(t, obj(
		"allow", obj("cmd", "*", "sh", true, "js", true),
		"deny", arr("network"),
		"danger", arr("cmd:rm:*:-rf", "cmd:sudo:*"),
		"labels", obj("secret", obj("deny", arr("op:show"))),
		"operations", obj("exfil", arr("net:w")),
	)))
	s.Add("b", mustParse(t, obj(
		"allow", obj("cmd", arr("git:status"), "sh", true),
		"deny", obj("cmd", arr("rm"), "js", true),
		"danger", arr("cmd:sudo:*"),
		"labels", obj("secret", obj("deny", arr("op:cmd"), "allow", arr("op:cmd:git"))),
		"operations", obj("exfil", arr("net:w", "mail:send")),
	)))
	s.Add("c", mustParse(t, obj("allow", true, "danger", arr("cmd:sudo:*"))))
	cfg := s.Configs()
	require.Equal(t, []string{"allow", "deny", "danger", "labels", "operations"}, cfg.Keys)

	allow := cfg.Values["allow"].(*value.Object)
	require.Equal(t, []string{"cmd", "sh"}, allow.Keys)
	require.Equal(t, []any{"git:status"}, allow.Values["cmd"])
	require.Equal(t, true, allow.Values["sh"])

	deny := cfg.Values["deny"].(*value.Object)
	require.Equal(t, []string{"cmd", "network", "js"}, deny.Keys)
	require.Equal(t, []any{"cmd:sudo:*"}, cfg.Values["danger"])

	secret := cfg.Values["labels"].(*value.Object).Values["secret"].(*value.Object)
	require.Equal(t, []any{"op:show", "op:cmd"}, secret.Values["deny"])
	require.Equal(t, []any{"op:cmd:git"}, secret.Values["allow"])
	require.Equal(t, []any{"net:w", "mail:send"}, cfg.Values["operations"].(*value.Object).Values["exfil"])

	s.Add("d", mustParse(t, obj("deny", true)))
	require.Equal(t, true, s.Configs().Values["deny"])
}

func TestDenialString(t *testing.T) {
	d := &Denial{Reason: "r", Rule: "labels.x.deny", Policies: []string{"p"}, Inputs: []string{"x"}, Targets: []string{"op:show"}}
	require.Equal(t, "r [rule labels.x.deny, policy [p], labels [x], targets [op:show]]", d.String())
	d = &Denial{Capability: true, Reason: "r", Rule: "deny", Policies: []string{"p"}, Command: "rm x"}
	require.Equal(t, `r [rule deny, policy [p], command "rm x"]`, d.String())
}
