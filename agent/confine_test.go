package agent_test

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/guardrun/guardrun/agent"
)

// confinementOf loads the policies (the last one a workspace policy
// when ws) and returns what they chose for confined shell commands.
func confinementOf(t *testing.T, ws bool, sources ...string) (agent.Confinement, error) {
	t.Helper()
	var ps []agent.Policy
	for i, s := range sources {
		ps = append(ps, agent.Policy{Name: "p.guard", Source: []byte(s), Workspace: ws && i == len(sources)-1})
	}
	e, err := agent.New(context.Background(), agent.Config{Policies: ps, Store: agent.NewMemoryStore()})
	if err != nil {
		return agent.Confinement{}, err
	}
	defer e.Close()
	return e.Confinement(), nil
}

// TestConfinePolicy: @confine chooses the ports kept, the secrets
// revealed to named commands and the write confinement; a user policy
// can turn it off, a workspace policy only make it stricter; a
// malformed @confine is a load error that says what is wrong.
func TestConfinePolicy(t *testing.T) {
	c, err := confinementOf(t, false, `var @confine = { ports: [5432, 3000], reveal: { "npm test": [".env"], "pytest": [".env.test", "/etc/app.key"] }, writes: "workspace" }`)
	if err != nil {
		t.Fatal(err)
	}
	if c.Off || !c.Writes || !reflect.DeepEqual(c.Ports, []int{3000, 5432}) || len(c.Reveal) != 2 {
		t.Fatalf("got %+v", c)
	}
	for _, tc := range []struct {
		cmds [][]string
		want []string
	}{
		{[][]string{{"npm", "test"}}, []string{".env"}},
		{[][]string{{"npm", "test", "--", "--watch"}}, []string{".env"}},
		{[][]string{{"pytest", "-x"}, {"pytest", "tests/a.py"}}, []string{".env.test", "/etc/app.key"}},
		{[][]string{{"npm", "test"}, {"python3", "-c", "print(open('.env').read())"}}, nil},
		{[][]string{{"npm", "run", "test"}}, nil},
		{[][]string{{"npx", "test"}}, nil},
		{nil, nil},
	} {
		if got := c.Revealed(tc.cmds); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Revealed(%q) = %q, want %q", tc.cmds, got, tc.want)
		}
	}

	if c, err := confinementOf(t, false, `var @confine = false`); err != nil || !c.Off {
		t.Errorf("@confine = false: %+v %v", c, err)
	}
	if c, err := confinementOf(t, false, `var @x = 1`); err != nil || c.Off || c.Writes || c.Ports != nil {
		t.Errorf("no @confine: want the starter profile, got %+v %v", c, err)
	}
	// A workspace policy may confine writes, and nothing more.
	if c, err := confinementOf(t, true, `var @x = 1`, `var @confine = { writes: "workspace" }`); err != nil || !c.Writes {
		t.Errorf("workspace writes: %+v %v", c, err)
	}
	for src, want := range map[string]string{
		`var @confine = false`:                          "a workspace policy can make the sandbox stricter, never turn it off",
		`var @confine = { ports: [22] }`:                "a workspace policy cannot keep network ports open",
		`var @confine = { reveal: { "ls": [".env"] } }`: "a workspace policy cannot reveal secrets",
	} {
		if _, err := confinementOf(t, true, `var @x = 1`, src); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("workspace %s: got %v, want %q", src, err, want)
		}
	}
	for src, want := range map[string]string{
		`var @confine = { port: [5432] }`:               `@confine.port is not a field of @confine (did you mean "ports"?)`,
		`var @confine = { ports: [70000] }`:             "@confine.ports: 70000 is not a TCP port",
		`var @confine = { ports: "5432" }`:              "@confine.ports must be an array",
		`var @confine = { reveal: [".env"] }`:           "@confine.reveal must be an object of command → paths",
		`var @confine = { reveal: { "": [".env"] } }`:   "an empty command would reveal to every line",
		`var @confine = { reveal: { "npm test": [] } }`: `@confine.reveal["npm test"] must be a non-empty array of paths`,
		`var @confine = { writes: "home" }`:             `@confine.writes must be "workspace" or "anywhere"`,
		`var @confine = "off"`:                          "@confine must be false or {",
	} {
		if _, err := confinementOf(t, false, src); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want %q", src, err, want)
		}
	}
}
