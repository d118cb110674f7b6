package protect

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// fixture is a home directory, a workspace inside it, guardrun's
// binaries and a few symbolic links, all in a temporary directory.
type fixture struct {
	tmp, home, ws, bin string
	set                Set
	// links maps a protected directory to symbolic links that name it.
	links map[string][]string
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	tmp, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{tmp: tmp, home: filepath.Join(tmp, "home"), bin: filepath.Join(tmp, "bin")}
	f.ws = filepath.Join(f.home, "proj")
	for _, d := range []string{
		".config/guardrun", ".config/nvim", ".local/state/guardrun/sessions", ".claude/agents",
		"proj/src", "proj/.claude", "proj/build", "other",
	} {
		mkdir(t, filepath.Join(f.home, d))
	}
	mkdir(t, f.bin)
	for _, p := range []string{
		filepath.Join(f.bin, "guardrun"), filepath.Join(f.bin, "guardrun-hook"), filepath.Join(f.bin, "go"),
		filepath.Join(f.home, ".config/guardrun/policy.guard"), filepath.Join(f.home, ".claude/settings.json"),
		filepath.Join(f.ws, "src/main.go"), filepath.Join(f.ws, ".env"),
	} {
		if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	f.links = map[string][]string{
		filepath.Join(f.home, ".config/guardrun"): {filepath.Join(tmp, "cfglink"), filepath.Join(f.ws, "src/cfg")},
		filepath.Join(f.home, ".config"):          {filepath.Join(f.ws, "dotconfig")},
		f.home:                                    {filepath.Join(tmp, "homelink")},
	}
	for target, links := range f.links {
		for _, l := range links {
			if err := os.Symlink(target, l); err != nil {
				t.Skipf("no symbolic links here: %v", err)
			}
		}
	}
	// A relative link, and one whose .. climbs from its target.
	if err := os.Symlink("../../.local/state", filepath.Join(f.ws, "src/st")); err != nil {
		t.Fatal(err)
	}
	f.links[filepath.Join(f.home, ".local/state")] = []string{filepath.Join(f.ws, "src/st")}
	f.set = forAgent(noEnv, f.home, f.ws, filepath.Join(f.bin, "guardrun-hook"))
	return f
}

func noEnv(string) string { return "" }

func mkdir(t testing.TB, d string) {
	t.Helper()
	if err := os.MkdirAll(d, 0o700); err != nil {
		t.Fatal(err)
	}
}

// protected are paths inside protected roots, or directories that hold
// one, relative to the fixture's tmp.
var protected = []string{
	"home/.config/guardrun",
	"home/.config/guardrun/policy.guard",
	"home/.config/guardrun/new/deep.guard",
	"home/.local/state/guardrun/sessions/abc.journal",
	"home/.local/state/guardrun/decisions.jsonl",
	"home/.cache/guardrun/ast/x",
	"home/.local/share/guardrun/trust.json",
	"home/.claude/settings.json",
	"home/.claude/settings.local.json",
	"home/.claude/settings-new.json",
	"home/.gemini/settings.json",
	"home/.codex/config.toml",
	"home/.codex/hooks.json",
	"home/.cursor/hooks.json",
	"home/proj/.claude/settings.json",
	"home/proj/.claude/settings.local.json",
	"home/proj/.gemini/settings.json",
	"home/proj/.cursor/hooks.json",
	"home/proj/.codex/config.toml",
	"home/proj/.guardrun/policy.guard",
	"home/proj/.guardrun",
	"bin/guardrun",
	"bin/guardrun-hook",
	"bin/guardrun-evil",
	// Directories that hold a root.
	"home/.config",
	"home/.local/state",
	"home/.local",
	"home/.claude",
	"home",
	"bin",
	"home/proj",
	"home/proj/.claude",
}

// ordinary are paths the agent may write, relative to tmp ("/" prefix:
// absolute as is).
var ordinary = []string{
	"home/proj/src/main.go",
	"home/proj/.env",
	"home/proj/build",
	"home/proj/build/out.o",
	"home/proj/src",
	"home/proj/.claude/agents/a.md",
	"home/proj/.codexrc",
	"home/proj/.guardrunner",
	"home/.config/nvim/init.lua",
	"home/.config/guardrun.bak",
	"home/.claude/agents/x.md",
	"home/.claude/settingsjson",
	"home/.local/bin/tool",
	"home/other/x",
	"bin/go",
	"bin/gofmt",
	"/tmp/x",
}

func (f *fixture) abs(rel string) string {
	if strings.HasPrefix(rel, "/") {
		return filepath.FromSlash(rel)
	}
	return filepath.Join(f.tmp, filepath.FromSlash(rel))
}

// spell writes absolute path p as an agent might, from a random working
// directory; it returns the spelling and the cwd it is relative to.
func (f *fixture) spell(r *rand.Rand, p string) (spelling, cwd string) {
	cwds := []string{f.ws, filepath.Join(f.ws, "src"), f.home, f.tmp, f.bin, "/", filepath.Join(f.home, "other")}
	cwd = cwds[r.Intn(len(cwds))]
	// Through a symbolic link to a directory on the way.
	for target, links := range f.links {
		if (p == target || within(p, target)) && r.Intn(2) == 0 {
			p = links[r.Intn(len(links))] + p[len(target):]
			break
		}
	}
	switch r.Intn(5) {
	case 0:
		spelling = p
	case 1:
		if rel, err := filepath.Rel(cwd, p); err == nil {
			spelling = rel
		} else {
			spelling = p
		}
	default:
		if within(p, f.home) {
			spelling = []string{"~", "$HOME", "${HOME}"}[r.Intn(3)] + p[len(f.home):]
		} else if p == f.home {
			spelling = []string{"~", "~/", "$HOME", "${HOME}/"}[r.Intn(4)]
		} else {
			spelling = p
		}
	}
	return garble(r, spelling), cwd
}

// garble doubles slashes, inserts /./ and dir/../ and adds a trailing
// slash, at random.
func garble(r *rand.Rand, p string) string {
	var b strings.Builder
	for i, el := range strings.Split(p, "/") {
		if i > 0 {
			b.WriteString("/")
			switch r.Intn(6) {
			case 0:
				b.WriteString("/")
			case 1:
				b.WriteString("./")
			case 2:
				b.WriteString("nonexistent/../")
			}
		}
		b.WriteString(el)
	}
	if r.Intn(4) == 0 {
		b.WriteString("/")
	}
	return b.String()
}

func TestCoversSpellings(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("spellings are written with slashes")
	}
	f := newFixture(t)
	r := rand.New(rand.NewSource(1))
	folds := new(builder).foldsAt(f.home)
	for _, rel := range protected {
		p := f.abs(rel)
		for range 200 {
			sp, cwd := f.spell(r, p)
			if folds && r.Intn(2) == 0 {
				sp = mixCase(r, sp)
			}
			if _, ok := f.set.Covers(sp, cwd); !ok {
				t.Errorf("%s: %q from %s is not covered", rel, sp, cwd)
			}
		}
	}
	for _, rel := range ordinary {
		p := f.abs(rel)
		for range 200 {
			sp, cwd := f.spell(r, p)
			if root, ok := f.set.Covers(sp, cwd); ok {
				t.Errorf("%s: %q from %s is covered (by %s)", rel, sp, cwd, root)
			}
		}
	}
}

// mixCase changes the case of letters of p at random.
func mixCase(r *rand.Rand, p string) string {
	b := []byte(p)
	for i, c := range b {
		if 'a' <= c && c <= 'z' && r.Intn(2) == 0 && !(i > 0 && b[i-1] == '$') {
			b[i] = c - 'a' + 'A'
		}
	}
	return strings.ReplaceAll(string(b), "${hOME}", "${HOME}")
}

// On a case-insensitive file system the roots compare folded. Linux test
// machines seldom have one, so the folding is tried on a set whose roots
// are made to fold, with paths that do not exist (an existing one is
// recognised by identity whatever its case).
func TestCoversFolded(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("spellings are written with slashes")
	}
	home := filepath.Join(t.TempDir(), "Home")
	s := forAgent(noEnv, home, "", "")
	for i := range s.roots {
		s.roots[i].path, s.roots[i].pattern, s.roots[i].fold = fold(s.roots[i].path), fold(s.roots[i].pattern), true
	}
	s.fold = true
	for _, p := range []string{
		"~/.CONFIG/GuardRun/policy.guard",
		"$HOME/.Local/STATE/guardrun/sessions/x",
		"~/.Claude/Settings.Local.JSON",
		"~/.CODEX/config.toml",
		strings.ToUpper(home) + "/.cursor/hooks.json",
		"~/.config/gua\u017frdrun", // no ſ in guardrun: not covered below
	} {
		_, ok := s.Covers(p, "/")
		if want := !strings.Contains(p, "\u017f"); ok != want {
			t.Errorf("%q: covered %v, want %v", p, ok, want)
		}
	}
	if _, ok := s.Covers("~/.claude/\u017fettings.json", "/"); !ok {
		t.Errorf("long s folds to s: ~/.claude/ſettings.json is not covered")
	}
	if _, ok := s.Covers("~/.config/nvim", "/"); ok {
		t.Errorf("~/.config/nvim is covered")
	}
}

func TestCoversIdentity(t *testing.T) {
	f := newFixture(t)
	hl := filepath.Join(f.ws, "hardlink")
	if err := os.Link(filepath.Join(f.home, ".claude/settings.json"), hl); err != nil {
		t.Skipf("no hard links: %v", err)
	}
	if root, ok := f.set.Covers("hardlink", f.ws); !ok || !strings.HasSuffix(root, "settings*.json") {
		t.Errorf("a hard link to settings.json: %q, %v", root, ok)
	}
}

func TestCoversLinkLoop(t *testing.T) {
	f := newFixture(t)
	a, b := filepath.Join(f.ws, "a"), filepath.Join(f.ws, "b")
	if err := os.Symlink(b, a); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(a, b); err != nil {
		t.Fatal(err)
	}
	if root, ok := f.set.Covers("a/x", f.ws); ok {
		t.Errorf("a link loop is covered by %s", root)
	}
	// A link replaced by the agent is decided as spelled too: a link in
	// the workspace named like nothing protected, pointing at ordinary
	// files, stays ordinary.
	if err := os.Symlink(filepath.Join(f.ws, "src"), filepath.Join(f.ws, "srclink")); err != nil {
		t.Fatal(err)
	}
	if root, ok := f.set.Covers("srclink/main.go", f.ws); ok {
		t.Errorf("srclink/main.go is covered by %s", root)
	}
}

func TestCoversEdges(t *testing.T) {
	f := newFixture(t)
	cases := []struct {
		p, cwd string
		want   bool
	}{
		{"", f.ws, false},
		{"/", f.ws, true},
		{".", f.ws, true}, // the workspace holds .guardrun/
		{"src/../.guardrun/p", f.ws, true},
		{"x", "", false},          // relative cwd: the workspace
		{".guardrun/x", "", true}, //
		{".guardrun/x", "src/..", true},
		{"~" + filepath.Base(f.home) + "/.config/guardrun", f.ws, true}, // ~user
		{"~nobody/.config/guardrun", f.ws, false},
		{"~../" + filepath.Base(f.tmp) + "/home/.config/guardrun", f.ws, false}, // a directory named ~..
		{"$HOMEX/.config/guardrun", f.ws, false},
		{"${HOME/.config/guardrun", f.ws, false},
		{"$HOME", f.ws, true},
		{"src/st/../state/guardrun/x", f.ws, true}, // .. from the link's target
		{"src/new/../st/guardrun", f.ws, true},
		{"src/cfg/../nvim/init.lua", f.ws, false},
		{"~", "/", true},
	}
	for _, c := range cases {
		if root, ok := f.set.Covers(c.p, c.cwd); ok != c.want {
			t.Errorf("Covers(%q, %q) = %q, %v; want %v", c.p, c.cwd, root, ok, c.want)
		}
	}
	var zero Set
	if _, ok := zero.Covers("/", "/"); ok {
		t.Errorf("the zero Set covers /")
	}
}

func TestForAgentEnv(t *testing.T) {
	tmp := t.TempDir()
	home := filepath.Join(tmp, "home")
	env := map[string]string{
		"XDG_CONFIG_HOME":   filepath.Join(tmp, "cfg"),
		"XDG_STATE_HOME":    "relative/state", // ignored: ~/.local/state
		"XDG_CACHE_HOME":    "",
		"XDG_DATA_HOME":     filepath.Join(tmp, "data"),
		"CLAUDE_CONFIG_DIR": filepath.Join(tmp, "claude"),
		"CODEX_HOME":        filepath.Join(tmp, "codex"),
	}
	s := forAgent(func(k string) string { return env[k] }, home, "", "")
	for _, c := range []struct {
		p    string
		want bool
	}{
		{filepath.Join(tmp, "cfg/guardrun/policy.guard"), true},
		{"$XDG_CONFIG_HOME/guardrun/policy.guard", true},
		{"${XDG_DATA_HOME}/guardrun/trust.json", true},
		{filepath.Join(home, ".local/state/guardrun/sessions/x"), true},
		{filepath.Join(tmp, "relative/state/guardrun/x"), false},
		{filepath.Join(home, ".cache/guardrun/ast"), true},
		{filepath.Join(tmp, "claude/settings.json"), true},
		{"$CLAUDE_CONFIG_DIR/settings.local.json", true},
		{filepath.Join(tmp, "claude/projects/x"), false},
		{filepath.Join(tmp, "codex/config.toml"), true},
		{filepath.Join(tmp, "cfg/nvim"), false},
	} {
		if root, ok := s.Covers(c.p, tmp); ok != c.want {
			t.Errorf("Covers(%q) = %q, %v; want %v", c.p, root, ok, c.want)
		}
	}
	// The test binary is not guardrun: its directory is not protected.
	s = ForAgent(noEnv, home, "")
	if exe, err := os.Executable(); err == nil {
		if root, ok := s.Covers(exe, "/"); ok {
			t.Errorf("the test binary %s is covered by %s", exe, root)
		}
	}
}

func TestMentions(t *testing.T) {
	f := newFixture(t)
	yes := []string{
		"printf '' > ~/.config/guardrun/exfil.guard",
		"printf '' > ~/.config//guardrun/exfil.guard",
		"cat x > ~/.config/./guardrun/exfil.guard",
		`open(os.path.expanduser("~/.config/guardrun/policy.guard"), "w")`,
		`"$HOME"/.local/'state'/guardrun/sessions`,
		"rm -r ${HOME}/.local/state/guardrun/sessions",
		"rm -r ~/.local/state",
		"shutil.rmtree(os.path.expanduser('~/.cache'))",
		"rm -rf $HOME/.config/",
		f.home + "/.local/share/guardrun/trust.json",
		"sed -i s/x/y/ .claude/settings.local.json",
		"*** Update File: .gemini/settings.json",
		"echo {} > ../.cursor/hooks.json",
		"cp x ~/.codex/config.toml",
		"mkdir -p .guardrun && echo > .guardrun/policy.guard",
		"fs.writeFileSync('.guardrun/p.guard', '')",
		"cp x " + f.bin + "/guardrun-hook",
		"cp x " + f.bin + "/guardrun",
		"x/../.config/guardrun/p",
		"rm -rf .claude",
	}
	for _, text := range yes {
		if _, ok := f.set.Mentions(text); !ok {
			t.Errorf("Mentions(%q) = false", text)
		}
	}
	no := []string{
		"",
		"echo hello > src/main.go",
		"cat ~/.config/nvim/init.lua",
		"ls ~/.config/nvim/",
		"cd ~ && ls",
		"my.guardrun.txt",
		".guardrunner",
		"go build ./... && ./bin/go",
		"import x.codex_client",
		"~/.local/bin/tool",
		"guardrun_config = 1",
		".claude/agents/a.md",
		"rm -r ~/.config/guardrun.bak",
		"a/.config/guardrun/../nvim/x",
	}
	for _, text := range no {
		if root, ok := f.set.Mentions(text); ok {
			t.Errorf("Mentions(%q) = %s", text, root)
		}
	}
}

func TestNormalize(t *testing.T) {
	for in, want := range map[string]string{
		"a//b///c":           "a/b/c",
		"a/./b/././c":        "a/b/c",
		`"a"/'b'`:            "a/b",
		"a/x/../b":           "a/b",
		"x/../y":             "y",
		"cd x/../y":          "cd y",
		"../../a":            "../../a",
		"~/../u/.config":     "~/../u/.config",
		"${HOME}/../u":       "${HOME}/../u",
		"/./":                "/",
		"guardrun x/../y/z":  "guardrun y/z",
		"a/b/c/../../d":      "a/d",
		"..x/../y":           "y",
		"./../y":             "./../y",
		"e/.../../f":         "e/f",
		"mixed/./a//b/../c/": "mixed/a/c/",
	} {
		if runtime.GOOS == "windows" && strings.ContainsAny(in, `\`) {
			continue
		}
		if got := normalize(in); got != want {
			t.Errorf("normalize(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestFold(t *testing.T) {
	for _, c := range [][2]string{
		{"ABC", "abc"}, {"Straße", "straße"}, {"\u017f", "s"}, {"\u212a", "k"}, {"ΣΑΣ", "σασ"},
	} {
		if got := fold(c[0]); got != fold(c[1]) {
			t.Errorf("fold(%q) = %q, fold(%q) = %q", c[0], got, c[1], fold(c[1]))
		}
	}
	if got := swapCase("aB1"); got != "Ab1" {
		t.Errorf("swapCase: %q", got)
	}
}

func Example() {
	home := filepath.FromSlash("/home/u")
	s := ForAgent(func(string) string { return "" }, home, filepath.Join(home, "proj"))
	for _, p := range []string{"~/.config//guardrun/policy.guard", "../.local/./state/guardrun/", "src/main.go"} {
		root, ok := s.Covers(p, filepath.Join(home, "proj"))
		fmt.Println(p, ok, filepath.ToSlash(root))
	}
	// Output:
	// ~/.config//guardrun/policy.guard true /home/u/.config/guardrun
	// ../.local/./state/guardrun/ true /home/u/.local/state/guardrun
	// src/main.go false
}
