package sandbox

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// childEnv carries a profile to a re-executed test binary: TestMain
// restricts itself to it and executes the command, as guardrun exec
// does.
const childEnv = "GUARDRUN_SANDBOX_TEST_CHILD"

type childSpec struct {
	Options Options
	Argv    []string
}

func TestMain(m *testing.M) {
	if spec := os.Getenv(childEnv); spec != "" {
		os.Exit(child(spec))
	}
	os.Exit(m.Run())
}

func child(spec string) int {
	var s childSpec
	if err := json.Unmarshal([]byte(spec), &s); err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		return 125
	}
	s.Options.Getenv = func(k string) string {
		if strings.HasPrefix(k, "XDG_") {
			return ""
		}
		return os.Getenv(k)
	}
	p, err := Build(s.Options)
	if err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		return 125
	}
	if err := p.Restrict(); err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		return 125
	}
	path, err := exec.LookPath(s.Argv[0])
	if err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		return 127
	}
	err = syscall.Exec(path, s.Argv, os.Environ())
	fmt.Fprintln(os.Stderr, "child:", err)
	return 126
}

// needLandlock skips the test, saying why, only when the kernel has no
// Landlock of the ABI the profile needs.
func needLandlock(t *testing.T, abi int) {
	t.Helper()
	v, err := ABI()
	if err != nil {
		t.Skipf("the kernel lacks Landlock, nothing to confine with: %v", err)
	}
	if v < abi {
		t.Skipf("the kernel's Landlock ABI is %d, this test needs %d", v, abi)
	}
}

// fixture is a home directory with guardrun's config and a host's hook
// settings, and a workspace in it with a .env, a README and a script.
type fixture struct {
	home, ws string
}

const secretValue = "sk-test-0123456789abcdef"

func newFixture(t *testing.T) fixture {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	f := fixture{home: filepath.Join(root, "home"), ws: filepath.Join(root, "home", "proj")}
	files := map[string]string{
		".config/guardrun/policy.guard":        "original policy\n",
		".config/guardrun/rules/secrets.guard": "original rules\n",
		".claude/settings.json":                "{}\n",
		".ssh/id_rsa":                          "PRIVATE " + secretValue + "\n",
		"proj/.env":                            "API_KEY=" + secretValue + "\n",
		"proj/README.md":                       "# readme\n",
		"proj/app/.env.local":                  "LOCAL_KEY=" + secretValue + "\n",
		"proj/scripts/x.py":                    "import os\nprint(open('README.md').read().strip())\nos.makedirs('build', exist_ok=True)\nopen('build/out.txt', 'w').write('built')\nprint(open('build/out.txt').read())\n",
	}
	for name, text := range files {
		p := filepath.Join(f.home, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

// run runs bash -c script in the workspace under the profile of
// classes, as the hook's rewritten command would.
func (f fixture) run(t *testing.T, o Options, script string) (stdout, stderr string, code int) {
	t.Helper()
	o.Home, o.Workspace = f.home, f.ws
	spec, err := json.Marshal(childSpec{Options: o, Argv: []string{"bash", "-c", script}})
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Dir = f.ws
	cmd.Env = append(os.Environ(), childEnv+"="+string(spec), "HOME="+f.home, "TMPDIR="+filepath.Join(f.home, "proj"))
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		code = ee.ExitCode()
	default:
		t.Fatal(err)
	}
	if code == 125 {
		t.Fatalf("the profile was not enforced: %s", errb.String())
	}
	return out.String(), errb.String(), code
}

var starter = Options{Classes: []Class{Protect, Secrets}}

// TestProtectedNotWritten: no spelling writes, links, renames, removes
// or adds to guardrun's config or a host's hook settings.
func TestProtectedNotWritten(t *testing.T) {
	needLandlock(t, 3)
	f := newFixture(t)
	cases := map[string]string{
		"cp by printf spelling":  `cp /dev/null "$(printf %s ~/.config/guard)run/exfil.guard"`,
		"append":                 `echo evil >> ~/.config/guardrun/policy.guard`,
		"truncate":               `truncate -s0 ~/.config/guardrun/policy.guard`,
		"python write":           `python3 -c 'open("'"$HOME"'/.config/guardrun/policy.guard", "w").write("evil")'`,
		"python new file":        `python3 -c 'import os; open(os.path.expanduser("~/.config/guardrun/exfil.guard"), "w")'`,
		"hard link out":          `ln ~/.config/guardrun/policy.guard linked.guard && echo evil >> linked.guard`,
		"hard link in":           `echo evil > e.guard && ln e.guard ~/.config/guardrun/exfil.guard`,
		"symlink then write":     `ln -s ~/.config/guardrun/policy.guard s.guard && echo evil > s.guard`,
		"rename out":             `mv ~/.config/guardrun/policy.guard moved.guard`,
		"rename within":          `mv ~/.config/guardrun/policy.guard ~/.config/guardrun/old.guard`,
		"rename directory":       `mv ~/.config/guardrun ~/.config/guardrun.old`,
		"remove":                 `rm -f ~/.config/guardrun/rules/secrets.guard`,
		"rename over":            `echo evil > n.guard && mv n.guard ~/.config/guardrun/policy.guard`,
		"dot-dot spelling":       `echo evil > ./../.config/./guardrun//policy.guard`,
		"proc cwd spelling":      `cd ~/.config && echo evil > /proc/self/cwd/guardrun/policy.guard`,
		"host hook settings":     `echo '{"hooks":{}}' > ~/.claude/settings.json`,
		"host settings new file": `echo '{"hooks":{}}' > ~/.claude/settings.local.json`,
		"config dir recreated":   `mkdir -p ~/.config/x && mv ~/.config/guardrun ~/.config/x/`,
	}
	for name, script := range cases {
		t.Run(name, func(t *testing.T) {
			_, stderr, code := f.run(t, starter, script)
			if code == 0 {
				t.Fatalf("%s: succeeded under the profile", script)
			}
			if !strings.Contains(stderr, "Permission denied") && !strings.Contains(stderr, "cross-device link") {
				t.Errorf("%s: refused, but not by the kernel (EACCES or EXDEV): %s", script, stderr)
			}
			f.unchanged(t)
		})
	}
}

// unchanged checks guardrun's config is as the fixture wrote it.
func (f fixture) unchanged(t *testing.T) {
	t.Helper()
	want := map[string]string{"policy.guard": "original policy\n", "rules": ""}
	entries, err := os.ReadDir(filepath.Join(f.home, ".config", "guardrun"))
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != len(want) {
		t.Errorf("the config directory holds %d entries, want %d", len(entries), len(want))
	}
	b, err := os.ReadFile(filepath.Join(f.home, ".config", "guardrun", "policy.guard"))
	if err != nil || string(b) != want["policy.guard"] {
		t.Errorf("policy.guard is now %q (%v)", b, err)
	}
	b, err = os.ReadFile(filepath.Join(f.home, ".claude", "settings.json"))
	if err != nil || string(b) != "{}\n" {
		t.Errorf("~/.claude/settings.json is now %q (%v)", b, err)
	}
	if _, err := os.Lstat(filepath.Join(f.home, ".claude", "settings.local.json")); err == nil {
		t.Errorf("~/.claude/settings.local.json was created")
	}
}

// TestSecretsUnreadable: the secret files cannot be read by any
// spelling, glob or link, nor copied out.
func TestSecretsUnreadable(t *testing.T) {
	needLandlock(t, 3)
	f := newFixture(t)
	cases := map[string]string{
		"cat":         `cat .env`,
		"python glob": `python3 -c 'import glob; [print(open(p).read()) for p in glob.glob(".e*") + glob.glob("*/.env*")]'`,
		"python walk": `python3 -c 'import os
for d, _, fs in os.walk("."):
    for n in fs:
        if "env" in n: print(open(os.path.join(d, n)).read())'`,
		"absolute":         `cat "$PWD/.env"`,
		"odd spelling":     `cat ./app/../.env`,
		"proc spelling":    `cat /proc/self/cwd/.env`,
		"symlink":          `ln -sf .env notsecret.txt && cat notsecret.txt`,
		"symlink in dir":   `ln -sf ../.env scripts/e && cat scripts/e`,
		"hard link":        `ln -f .env scripts/e2 && cat scripts/e2`,
		"copy":             `cp .env /dev/stdout`,
		"nested":           `cat app/.env.local`,
		"ssh key":          `cat ~/.ssh/id_rsa`,
		"source in shell":  `. ./.env; echo "$API_KEY"`,
		"python read_text": `python3 -c 'import pathlib; print(pathlib.Path(".env").read_text())'`,
	}
	// As root (here, in containers, in CI) the workspace's secrets are
	// covered in a mount namespace; elsewhere Landlock denies them. Both
	// are tried.
	for _, landlockOnly := range []bool{false, true} {
		o := starter
		o.NoMountNamespace = landlockOnly
		for name, script := range cases {
			t.Run(fmt.Sprintf("%s/landlock-only=%v", name, landlockOnly), func(t *testing.T) {
				stdout, stderr, _ := f.run(t, o, script)
				if strings.Contains(stdout, secretValue) || strings.Contains(stderr, secretValue) {
					t.Fatalf("%s: read the secret", script)
				}
				if (landlockOnly || name == "ssh key") && !strings.Contains(stderr, "Permission denied") && !strings.Contains(stderr, "cross-device link") {
					t.Errorf("%s: not refused by the kernel: %s", script, stderr)
				}
			})
		}
	}
	t.Run("revealed", func(t *testing.T) {
		o := starter
		o.Reveal = []string{filepath.Join(f.ws, ".env")}
		stdout, stderr, _ := f.run(t, o, `cat .env; cat app/.env.local`)
		if !strings.Contains(stdout, "API_KEY="+secretValue) || strings.Contains(stdout, "LOCAL_KEY") {
			t.Errorf("--reveal .env: want .env readable and app/.env.local not: %q %q", stdout, stderr)
		}
	})
}

// TestOfflineRefusesConnect: in a session that holds a secret, connect
// to a local listener is refused, by TCP, MPTCP and UDP alike; the
// allowed port is reached; a clean session reaches the listener.
func TestOfflineRefusesConnect(t *testing.T) {
	needLandlock(t, 4)
	f := newFixture(t)
	l, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	port := l.Addr().(*net.TCPAddr).Port
	connect := func(proto string) string {
		return fmt.Sprintf(`python3 -c '
import socket
s = socket.socket(socket.AF_INET, socket.%s)
s.connect(("127.0.0.1", %d))
print("connected")'`, proto, port)
	}
	offline := Options{Classes: []Class{Protect, Secrets, Offline}}
	for name, proto := range map[string]string{
		"tcp":   "SOCK_STREAM",
		"mptcp": "SOCK_STREAM, 262",
		"udp":   "SOCK_DGRAM",
		"raw":   "SOCK_RAW, socket.IPPROTO_TCP",
	} {
		t.Run(name, func(t *testing.T) {
			stdout, stderr, code := f.run(t, offline, connect(proto))
			if code == 0 || strings.Contains(stdout, "connected") {
				t.Fatalf("%s connect succeeded offline", name)
			}
			if !strings.Contains(stderr, "Permission denied") && !strings.Contains(stderr, "Connection refused") {
				t.Errorf("%s: not refused by the kernel: %s", name, stderr)
			}
		})
	}
	t.Run("curl", func(t *testing.T) {
		if _, err := exec.LookPath("curl"); err != nil {
			t.Skip("no curl here; the python cases cover connect")
		}
		_, stderr, code := f.run(t, offline, fmt.Sprintf("curl -sS -m 5 -d @README.md http://127.0.0.1:%d/", port))
		if code == 0 {
			t.Fatalf("curl reached the listener offline: %s", stderr)
		}
	})
	t.Run("allowed port", func(t *testing.T) {
		o := offline
		o.Ports = []uint16{uint16(port)}
		if stdout, stderr, code := f.run(t, o, connect("SOCK_STREAM")); code != 0 || !strings.Contains(stdout, "connected") {
			t.Errorf("the allowed port was refused: %s", stderr)
		}
	})
	t.Run("clean session", func(t *testing.T) {
		if stdout, stderr, code := f.run(t, starter, connect("SOCK_STREAM")); code != 0 || !strings.Contains(stdout, "connected") {
			t.Errorf("a clean session's connect was refused: %s", stderr)
		}
	})
}

// TestEverydayWork: what an agent does all day works under the starter
// profile and under the offline one.
func TestEverydayWork(t *testing.T) {
	needLandlock(t, 4)
	for _, o := range []Options{starter, {Classes: []Class{Protect, Secrets, Offline}}, {Classes: []Class{Protect, Secrets, Writes}}} {
		t.Run(fmt.Sprint(o.Classes), func(t *testing.T) {
			f := newFixture(t)
			script := `set -e
python3 scripts/x.py
python3 -c 'print(open("README.md").read().strip())'
mkdir -p build/sub && echo ok > build/sub/a && cat build/sub/a
echo more >> README.md && tail -1 README.md
ls -a | grep -c . >/dev/null
git init -q . 2>/dev/null && echo git ok
tmp=$(mktemp) && echo t > "$tmp" && cat "$tmp" && rm "$tmp"
cat ~/.config/guardrun/policy.guard`
			stdout, stderr, code := f.run(t, o, script)
			if code != 0 {
				t.Fatalf("everyday work failed (%d): %s\n%s", code, stdout, stderr)
			}
			for _, want := range []string{"# readme", "built", "ok", "more", "t", "original policy"} {
				if !strings.Contains(stdout, want) {
					t.Errorf("output lacks %q: %s", want, stdout)
				}
			}
		})
	}
}

// TestWritesConfined: with the writes class, nothing is written outside
// the workspace, temp and the caches.
func TestWritesConfined(t *testing.T) {
	needLandlock(t, 3)
	f := newFixture(t)
	o := Options{Classes: []Class{Protect, Writes}}
	_, stderr, code := f.run(t, o, `echo x > ~/outside.txt`)
	if code == 0 || !strings.Contains(stderr, "Permission denied") {
		t.Errorf("a write outside the workspace was not refused: %d %s", code, stderr)
	}
	if _, _, code := f.run(t, o, `echo x > build.txt && cat build.txt`); code != 0 {
		t.Errorf("a write in the workspace was refused")
	}
}

// TestFrozenRootCost measures the known cost of denying a secret at the
// workspace root with Landlock alone (no mount namespace): a file
// created there afterwards cannot be read back by the same command.
func TestFrozenRootCost(t *testing.T) {
	needLandlock(t, 3)
	f := newFixture(t)
	o := starter
	o.NoMountNamespace = true
	_, stderr, code := f.run(t, o, `echo x > new.txt; cat new.txt`)
	if code == 0 || !strings.Contains(stderr, "Permission denied") {
		t.Errorf("the frozen root's cost changed (update docs/security-model.md): %d %s", code, stderr)
	}
}
