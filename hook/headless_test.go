package hook

import (
	"testing"
)

// The host's headless flag is read from the command line of the nearest
// ancestor that is the host, through the shells that start a hook, and
// no further: a test binary or a build tool in between is not a host.
func TestHeadlessHost(t *testing.T) {
	cases := []struct {
		host      string
		ancestors [][]string
		want      string
	}{
		{"gemini", [][]string{{"/bin/sh", "-c", "guardrun hook gemini"}, {"node", "/usr/lib/node_modules/@google/gemini-cli/dist/index.js", "-p", "fix it", "--yolo"}}, "-p"},
		{"gemini", [][]string{{"/usr/local/bin/gemini", "--yolo"}}, "--yolo"},
		{"gemini", [][]string{{"gemini", "--approval-mode", "yolo"}}, "--approval-mode yolo"},
		{"gemini", [][]string{{"gemini", "--prompt=hi"}}, "--prompt=hi"},
		{"gemini", [][]string{{"gemini", "-i", "hi"}}, ""},
		{"gemini", [][]string{{"bash", "-c", "x"}, {"node", "/opt/gemini"}}, ""},
		{"claude", [][]string{{"claude", "-p", "do it"}}, "-p"},
		{"claude", [][]string{{"claude", "--print"}}, "--print"},
		{"claude", [][]string{{"/x/node_modules/@anthropic-ai/claude-code/bin/claude.exe", "-p", "hi"}}, "-p"},
		{"codex", [][]string{{"/x/codex-x86_64-unknown-linux-musl", "exec", "fix"}}, "exec"},
		{"claude", [][]string{{"claude"}}, ""},
		{"codex", [][]string{{"codex", "-m", "o4", "exec", "fix"}}, "exec"},
		{"codex", [][]string{{"codex", "-m", "exec"}}, ""},
		{"codex", [][]string{{"codex", "explain exec"}}, ""},
		// Past a program that is no shell, nothing is the host.
		{"gemini", [][]string{{"/tmp/go-build/hook.test"}, {"gemini", "-p", "x"}}, ""},
	}
	defer func(f func() [][]string) { ancestorArgs = f }(ancestorArgs)
	for _, c := range cases {
		ancestorArgs = func() [][]string { return c.ancestors }
		ok, flag := headlessHost(c.host)
		if ok != (c.want != "") || flag != c.want {
			t.Errorf("%s %q: got %v %q, want %q", c.host, c.ancestors, ok, flag, c.want)
		}
	}
	t.Setenv(UnattendedEnv, "0")
	ancestorArgs = func() [][]string { return [][]string{{"gemini", "-p", "x"}} }
	if ok, _ := headlessHost("gemini"); ok {
		t.Errorf("%s=0 should turn the detection off", UnattendedEnv)
	}
}
