package hook_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// guardrun-hook answers every recorded payload exactly as `guardrun hook`
// does (the .want files of TestPayloads), decision log included.
func TestSlimHookAnswersAsGuardrunHook(t *testing.T) {
	files, _ := filepath.Glob("testdata/payloads/*/*.json")
	sort.Strings(files)
	if len(files) == 0 {
		t.Fatal("no payloads")
	}
	for _, f := range files {
		agent := filepath.Base(filepath.Dir(f))
		name := strings.TrimSuffix(filepath.Base(f), ".json")
		t.Run(agent+"/"+name, func(t *testing.T) {
			e := newEnv(t)
			in, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			got := e.runBin(t, slim, in, agent, "--policy", testPolicy(t)).String() + "\n" + e.logged(t)
			want, err := os.ReadFile(strings.TrimSuffix(f, ".json") + ".want")
			if err != nil {
				t.Fatal(err)
			}
			if got != string(want) {
				t.Errorf("got\n%s\nwant\n%s", got, want)
			}
		})
	}
}

// jsPolicy decides with a JavaScript helper; tokensPolicy with a token
// count. guardrun-hook can run neither itself.
const (
	jsPolicy = `var tools @agent = { "Bash": { labels: ["cmd"] } }
exe @flagged(c) = js { return c.includes("JSDENY") }
guard @cmd before op:cmd = when [
  @flagged(@mx.args.command) => deny "the js helper said no"
  * => allow
]
`
	tokensPolicy = `var tools @agent = { "Bash": { labels: ["cmd"] } }
guard @cmd before op:cmd = when [
  @mx.args.command.mx.tokens > 3 => deny "too many tokens"
  * => allow
]
`
)

func writePolicy(t *testing.T, src string) string {
	p := filepath.Join(t.TempDir(), "policy.guard")
	if err := os.WriteFile(p, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// A policy that needs the JavaScript engine or the tokenizer is handed
// to the guardrun beside guardrun-hook: the answer and the decision log
// are exactly guardrun's, and the event is decided once.
func TestSlimHookDelegatesToGuardrun(t *testing.T) {
	cases := []struct{ name, policy, command, want string }{
		{"js deny", jsPolicy, "echo JSDENY", `"permissionDecision":"deny","permissionDecisionReason":"guardrun: the js helper said no (` + "`echo JSDENY`" + `; guard @cmd). To allow it, add to policy.guard: policy @optIn = { guards: { except: ['@cmd'] } }"`},
		{"js allow", jsPolicy, "echo fine", `{}`},
		{"tokens deny", tokensPolicy, "echo one two three four five", `"permissionDecision":"deny","permissionDecisionReason":"guardrun: too many tokens (` + "`echo one two three four five`" + `; guard @cmd). To allow it, add to policy.guard: policy @optIn = { guards: { except: ['@cmd'] } }"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			pol := writePolicy(t, c.policy)
			p := payload(t, "claude", "PreToolUse")
			setCommand(p, c.command)
			ev := mustJSON(t, p)

			full, slimEnv := newEnv(t), newEnv(t)
			want := full.run(t, ev, "hook", "claude", "--policy", pol)
			got := slimEnv.runBin(t, slim, ev, "claude", "--policy", pol)
			if !strings.Contains(want.stdout, c.want) {
				t.Fatalf("guardrun itself answered\n%s\nwant %s", want, c.want)
			}
			if got.String() != want.String() {
				t.Errorf("guardrun-hook answered\n%s\nguardrun\n%s", got, want)
			}
			if g, w := slimEnv.logged(t), full.logged(t); g != w || strings.Count(g, "\n") != 1 {
				t.Errorf("decision log\n%s\nwant (one record)\n%s", g, w)
			}
		})
	}
}

// With no guardrun to hand the event to, or when it was handed over
// already (no loop), the event is denied, saying why.
func TestSlimHookWithoutGuardrunDenies(t *testing.T) {
	pol := writePolicy(t, jsPolicy)
	p := payload(t, "claude", "PreToolUse")
	setCommand(p, "echo fine")
	ev := mustJSON(t, p)
	for _, c := range []struct {
		name, path string
		extra      []string
		reason     string
	}{
		{"none found", lone, []string{"PATH=" + t.TempDir()}, "no guardrun command beside this one or on PATH"},
		{"already delegated", slim, []string{"GUARDRUN_HOOK_DELEGATED=1"}, "lacks the engine too"},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t)
			e.extra = c.extra
			r := e.runBin(t, c.path, ev, "claude", "--policy", pol)
			// Claude Code's blocking error: exit 2, the reason on stderr.
			for _, want := range []string{"js block needs the JavaScript engine", "policy.guard:2:19:", c.reason} {
				if !strings.Contains(r.stderr, want) {
					t.Errorf("answer lacks %q:\n%s", want, r)
				}
			}
			if r.code != 2 || r.stdout != "" {
				t.Errorf("not Claude Code's denial:\n%s", r)
			}
		})
	}
}

// guardrun-hook links no JavaScript engine, no tokenizer and none of
// what they pull in.
func TestSlimHookLinksNoEngine(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "github.com/guardrun/guardrun/cmd/guardrun-hook").Output()
	if err != nil {
		t.Fatal(err)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 20 {
		t.Fatalf("go list -deps gave %d packages", len(deps))
	}
	banned := []string{"github.com/dop251/goja", "github.com/google/pprof", "github.com/dlclark/regexp2", "golang.org/x/text",
		"github.com/pkoukk/tiktoken-go", "net/http", "crypto/tls", "github.com/guardrun/guardrun/js", "github.com/guardrun/guardrun/tokens",
		"runtime/metrics", "hash/crc32"}
	for _, d := range deps {
		for _, b := range banned {
			if d == b || strings.HasPrefix(d, b+"/") {
				t.Errorf("guardrun-hook links %s", d)
			}
		}
	}
}

// No package of this module that guardrun-hook or guardrun links
// compiles a regular expression at package level: every process would pay
// for it at start, whether or not the pattern is ever used
// (sync.OnceValue instead).
func TestCommandsCompileNoRegexpAtInit(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}} {{.Dir}} {{join .GoFiles \",\"}}",
		"github.com/guardrun/guardrun/cmd/guardrun-hook", "github.com/guardrun/guardrun/cmd/guardrun").Output()
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		if len(f) < 3 || !strings.HasPrefix(f[0], "github.com/guardrun/guardrun") {
			continue
		}
		for _, name := range strings.Split(f[2], ",") {
			path := filepath.Join(f[1], name)
			file, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			checked++
			for _, d := range file.Decls {
				g, ok := d.(*ast.GenDecl)
				if !ok || g.Tok != token.VAR {
					continue
				}
				ast.Inspect(g, func(n ast.Node) bool {
					if _, lit := n.(*ast.FuncLit); lit {
						return false // runs when called, not at init
					}
					if sel, ok := n.(*ast.SelectorExpr); ok {
						if x, ok := sel.X.(*ast.Ident); ok && x.Name == "regexp" && strings.HasPrefix(sel.Sel.Name, "MustCompile") {
							t.Errorf("%s: package-level regexp.%s", path, sel.Sel.Name)
						}
					}
					return true
				})
			}
		}
	}
	if checked < 50 {
		t.Fatalf("checked only %d files", checked)
	}
}

// guardrun-hook drops to one P before any package init allocates: the
// oneproc import must stay, and its init must come first (Go initialises
// packages in import-path order as their imports are ready, so a rename
// or a new import of oneproc's could move it after the inits whose
// allocation caches the second P would then hold).
//
// So does the full guardrun, for every command: `guardrun hook` keeps
// one P, and the other commands get theirs back in main.
func TestSlimHookOneProcBeforeInits(t *testing.T) {
	for _, args := range [][]string{{slim}, {bin, "hook"}} {
		t.Run(filepath.Base(args[0]), func(t *testing.T) { oneProcFirst(t, args) })
	}
}

func oneProcFirst(t *testing.T, args []string) {
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	out, _ := cmd.CombinedOutput() // a usage error: exit status 2
	seen := false
	for _, line := range strings.Split(string(out), "\n") {
		// init PKG @T ms, C ms clock, B bytes, N allocs
		f := strings.Fields(line)
		if len(f) < 11 || f[0] != "init" {
			continue
		}
		if f[1] == "github.com/guardrun/guardrun/internal/oneproc" {
			seen = true
			break
		}
		if f[1] != "runtime" && f[9] != "0" {
			t.Errorf("%s allocates (%s allocs) before oneproc's init", f[1], f[9])
		}
	}
	if !seen {
		t.Fatalf("%s does not initialise internal/oneproc:\n%s", args[0], out)
	}
}
