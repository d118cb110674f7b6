package hook_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// denyDeploy is a guard module that denies Bash commands naming deploy.
const denyDeploy = "guard @noDeploy before op:cmd = when [\n  @mx.args.command.includes(\"deploy\") => deny \"no deploys from agents\"\n  * => allow\n]\n"

// toolsDecl declares Bash as a cmd tool.
const toolsDecl = "var tools @agent = { Bash: { labels: [\"cmd\"] } }\n"

// hookCall runs one Claude PreToolUse Bash call of session sid in cwd.
func hookCall(t *testing.T, e *env, sid, cwd, cmd string, args ...string) result {
	t.Helper()
	p := payload(t, "claude", "PreToolUse")
	p["cwd"] = cwd
	p["session_id"] = sid
	setCommand(p, cmd)
	return e.run(t, mustJSON(t, p), append([]string{"hook", "claude"}, args...)...)
}

// repo makes a repository root (holding .git and .guardrun) under e's
// home.
func repo(t *testing.T, e *env) string {
	t.Helper()
	ws := filepath.Join(e.home, "repo")
	for _, d := range []string{".git", ".guardrun"} {
		if err := os.MkdirAll(filepath.Join(ws, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	return ws
}

func write(t *testing.T, path, src string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestTrustedPolicyLoadsOnlyPinnedModules (trust-unpinned-load): every
// module a trusted workspace policy loads is pinned — an import spelled
// '@team.guard' (a local file to the interpreter), the modules of an
// imported directory, a module's own imports — so a module changed,
// added or removed after `guardrun trust` is refused before it runs.
func TestTrustedPolicyLoadsOnlyPinnedModules(t *testing.T) {
	cases := []struct {
		name   string
		files  map[string]string // relative to .guardrun
		change string            // the module then rewritten
	}{
		{"at-import", map[string]string{"policy.guard": toolsDecl + "import guards from '@team.guard'\n", "@team.guard": denyDeploy}, "@team.guard"},
		{"directory import", map[string]string{"policy.guard": toolsDecl + "import { @core } from \"./team\"\n" + denyDeploy, "team/core/index.mld": "var @x = 1\nexport { @x }\n"}, "team/core/index.mld"},
		{"module added to a directory", map[string]string{"policy.guard": toolsDecl + "import { @core } from \"./team\"\n" + denyDeploy, "team/core/index.mld": "var @x = 1\nexport { @x }\n"}, "team/evil/index.mld"},
		{"nested import", map[string]string{"policy.guard": toolsDecl + "import guards from \"./a.guard\"\n", "a.guard": "import guards from \"./b.guard\"\n", "b.guard": denyDeploy}, "b.guard"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t)
			ws := repo(t, e)
			for f, src := range c.files {
				write(t, filepath.Join(ws, ".guardrun", filepath.FromSlash(f)), src)
			}
			if r := e.run(t, nil, "trust", filepath.Join(ws, ".guardrun", "policy.guard")); r.code != 0 {
				t.Fatalf("trust: %s", r)
			}
			if r := hookCall(t, e, "s0", ws, "make deploy"); r.code != 0 || !strings.Contains(r.stdout, "no deploys") {
				t.Fatalf("control: the trusted policy did not deny: %s", r)
			}
			pwned := filepath.Join(e.home, "PWNED")
			write(t, filepath.Join(ws, ".guardrun", filepath.FromSlash(c.change)), "run cmd { touch "+pwned+" }\nvar @x = 1\nexport { @x }\n")
			r := hookCall(t, e, "s1", ws, "make deploy")
			if _, err := os.Stat(pwned); err == nil {
				t.Fatalf("the unapproved module ran: %s", r)
			}
			if r.code != 2 || !strings.Contains(r.stderr, "guardrun trust "+filepath.Join(ws, ".guardrun", "policy.guard")) {
				t.Fatalf("want a denial naming the approval command, got %s", r)
			}
		})
	}
}

// TestUserPolicyPinned (policy-self-edit): init pins the starter policy
// it writes; a user policy changed behind guardrun's back (a module
// emptied, as an agent's shell command can) is not loaded: every call is
// denied, naming the file and `guardrun trust --user`, which pins it
// again. A user policy without a pin is denied the same way.
func TestUserPolicyPinned(t *testing.T) {
	e := newEnv(t)
	if r := e.run(t, nil, "init", "claude", "--settings", filepath.Join(e.home, ".claude", "settings.json")); r.code != 0 || !strings.Contains(r.stdout, "pinned") {
		t.Fatalf("init: %s", r)
	}
	cwd := e.home
	if r := hookCall(t, e, "s", cwd, "ls"); r.code != 0 || strings.Contains(r.stdout, "deny") {
		t.Fatalf("starter policy after init: %s", r)
	}
	exfil := filepath.Join(e.config, "guardrun", "exfil.guard")
	write(t, exfil, "")
	r := hookCall(t, e, "s", cwd, "ls")
	if r.code != 2 || !strings.Contains(r.stderr, exfil) || !strings.Contains(r.stderr, "guardrun trust --user") {
		t.Fatalf("changed user policy module: want a denial naming %s and guardrun trust --user, got %s", exfil, r)
	}
	if r := e.run(t, nil, "trust", "--user"); r.code != 0 {
		t.Fatalf("trust --user: %s", r)
	}
	if r := hookCall(t, e, "s", cwd, "ls"); r.code != 0 {
		t.Fatalf("after trust --user: %s", r)
	}
	if r := e.run(t, nil, "trust", "--list"); !strings.Contains(r.stdout, "user policy") {
		t.Errorf("trust --list does not show the user policy: %s", r)
	}
	if err := os.Remove(filepath.Join(e.data, "guardrun", "trust.json")); err != nil {
		t.Fatal(err)
	}
	r = hookCall(t, e, "s", cwd, "ls")
	if r.code != 2 || !strings.Contains(r.stderr, "is not pinned") || !strings.Contains(r.stderr, "guardrun trust --user") {
		t.Fatalf("unpinned user policy: got %s", r)
	}
}

// TestWorkspaceBoundToSession (workspace-cwd-escape): the workspace
// policy of a session is found from where the session began (the host's
// project directory, else its first event's cwd), so neither a .git the
// agent makes in a subdirectory nor a cwd outside the repository drops
// it.
func TestWorkspaceBoundToSession(t *testing.T) {
	e := newEnv(t)
	// A user policy that allows: without the workspace policy, deploys
	// would pass.
	e.userPolicy(t, toolsDecl)
	ws := repo(t, e)
	write(t, filepath.Join(ws, ".guardrun", "policy.guard"), toolsDecl+denyDeploy)
	if r := e.run(t, nil, "trust", filepath.Join(ws, ".guardrun", "policy.guard")); r.code != 0 {
		t.Fatalf("trust: %s", r)
	}
	denied := func(r result) bool { return r.code == 0 && strings.Contains(r.stdout, "no deploys") }
	if r := hookCall(t, e, "s", ws, "make deploy"); !denied(r) {
		t.Fatalf("control: %s", r)
	}
	write(t, filepath.Join(ws, "sub", ".git", "HEAD"), "")
	if r := hookCall(t, e, "s", filepath.Join(ws, "sub"), "make -C .. deploy"); !denied(r) {
		t.Errorf("cwd below a new .git: %s", r)
	}
	elsewhere := filepath.Join(e.home, "elsewhere")
	write(t, filepath.Join(elsewhere, "x"), "")
	if r := hookCall(t, e, "s", elsewhere, "make -C "+ws+" deploy"); !denied(r) {
		t.Errorf("cwd outside the repository: %s", r)
	}
	// The host's project directory binds a session whose first event is
	// elsewhere.
	e.extra = append(e.extra, "CLAUDE_PROJECT_DIR="+ws)
	if r := hookCall(t, e, "s2", elsewhere, "make -C "+ws+" deploy"); !denied(r) {
		t.Errorf("CLAUDE_PROJECT_DIR: %s", r)
	}
	st, err := os.Stat(filepath.Join(e.state, "guardrun", "workspaces"))
	if err != nil || st.Mode().Perm() != 0o700 {
		t.Errorf("workspaces directory: %v %v", st, err)
	}
}

// TestASTCachePoisonE2E (ast-cache-poison): the cached tree of another
// text of the trusted policy, copied over the approved text's entry, is
// not run: the file is the approved one, and so must be what decides.
func TestASTCachePoisonE2E(t *testing.T) {
	e := newEnv(t)
	ws := repo(t, e)
	pol := filepath.Join(ws, ".guardrun", "policy.guard")
	approved := toolsDecl + denyDeploy
	write(t, pol, approved)
	if r := e.run(t, nil, "trust", pol); r.code != 0 {
		t.Fatalf("trust: %s", r)
	}
	if r := hookCall(t, e, "s", ws, "make deploy"); r.code != 0 || !strings.Contains(r.stdout, "no deploys") {
		t.Fatalf("control: %s", r)
	}
	cache := filepath.Join(e.home, ".cache", "guardrun", "ast")
	entries := func() map[string]bool {
		m := map[string]bool{}
		ents, _ := os.ReadDir(cache)
		for _, x := range ents {
			m[x.Name()] = true
		}
		return m
	}
	var old string
	for n := range entries() {
		if b, _ := os.ReadFile(filepath.Join(cache, n)); bytes.Contains(b, []byte(pol)) {
			old = n
		}
	}
	if old == "" {
		t.Fatal("no cache entry names the policy")
	}
	before := entries()
	// Another text at the policy's path, parsed and cached by a hook run
	// (here with --policy, which loads a file as it is).
	write(t, pol, toolsDecl+"var @x = 1\n")
	hookCall(t, e, "s", ws, "ls", "--policy", pol)
	write(t, pol, approved)
	var planted string
	for n := range entries() {
		if !before[n] {
			planted = n
		}
	}
	if planted == "" {
		t.Fatal("the other text was not cached")
	}
	b, err := os.ReadFile(filepath.Join(cache, planted))
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(cache, old), string(b))
	if r := hookCall(t, e, "s", ws, "make deploy"); r.code != 0 || !strings.Contains(r.stdout, "no deploys") {
		t.Fatalf("the planted tree decided for the approved policy: %s", r)
	}
}

// TestInitKeepsUnpinnedUserPolicy: init does not pin a policy it did not
// write (the user reviews it first): it says the policy is not pinned and
// names guardrun trust --user; the hook denies until then.
func TestInitKeepsUnpinnedUserPolicy(t *testing.T) {
	e := newEnv(t)
	pol := filepath.Join(e.config, "guardrun", "policy.guard")
	write(t, pol, toolsDecl)
	r := e.run(t, nil, "init", "claude", "--settings", filepath.Join(e.home, ".claude", "settings.json"))
	if r.code != 0 || !strings.Contains(r.stdout, "kept (your policy)") || !strings.Contains(r.stdout, "is not pinned") || !strings.Contains(r.stdout, "guardrun trust --user") {
		t.Fatalf("init: %s", r)
	}
	if r := hookCall(t, e, "s", e.home, "ls"); r.code != 2 || !strings.Contains(r.stderr, pol) || !strings.Contains(r.stderr, "guardrun trust --user") {
		t.Fatalf("hook before trust --user: %s", r)
	}
	if r := e.run(t, nil, "trust", "--user", pol); r.code != 2 {
		t.Errorf("trust --user FILE: want a usage error, got %s", r)
	}
	if r := e.run(t, nil, "trust", "--user"); r.code != 0 {
		t.Fatalf("trust --user: %s", r)
	}
	if r := hookCall(t, e, "s", e.home, "ls"); r.code != 0 {
		t.Fatalf("hook after trust --user: %s", r)
	}
}

// TestWorkspaceBuiltinsBoundToSession: the engine's workspace builtins
// (@readWorkspaceFile here; scope.guard's @pathMatches, stale.guard) see
// the session's bound repository, not the one the agent's cwd is in.
func TestWorkspaceBuiltinsBoundToSession(t *testing.T) {
	e := newEnv(t)
	e.userPolicy(t, toolsDecl+"guard @marked before op:cmd = when [\n  @readWorkspaceFile(\"marker.txt\") == \"in the repo\" => deny \"the workspace is the repo\"\n  * => allow\n]\n")
	ws := repo(t, e)
	write(t, filepath.Join(ws, "marker.txt"), "in the repo")
	if r := hookCall(t, e, "s", ws, "ls"); r.code != 0 || !strings.Contains(r.stdout, "the workspace is the repo") {
		t.Fatalf("control: %s", r)
	}
	other := filepath.Join(e.home, "other")
	write(t, filepath.Join(other, ".git", "HEAD"), "")
	if r := hookCall(t, e, "s", other, "ls"); r.code != 0 || !strings.Contains(r.stdout, "the workspace is the repo") {
		t.Fatalf("cwd in another repository: %s", r)
	}
}
