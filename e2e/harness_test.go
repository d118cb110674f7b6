//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/guardrun/guardrun/e2e/fakemodel"
)

// cacheDir is where `make e2e` installed the hosts (e2e/install.sh).
func cacheDir() string {
	if d := os.Getenv("GUARDRUN_E2E_CACHE"); d != "" {
		return d
	}
	wd, _ := os.Getwd()
	return filepath.Join(filepath.Dir(wd), ".cache", "e2e")
}

// binDir holds the guardrun and guardrun-hook binaries built for the run.
var binDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "guardrun-e2e-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	build := exec.Command("go", "build", "-o", dir+string(os.PathSeparator), "../cmd/guardrun", "../cmd/guardrun-hook")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	// Static, as the README installs them.
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "e2e: building guardrun:", err)
		os.Exit(1)
	}
	binDir = dir
	code := m.Run()
	fmt.Print(summary())
	if p := os.Getenv("GUARDRUN_E2E_SUMMARY"); p != "" {
		os.WriteFile(p, []byte(summary()), 0o644)
	}
	os.RemoveAll(dir)
	os.Exit(code)
}

// hostBin is the installed host's executable; the test fails (never
// skips) when it is missing or not the version e2e/versions.txt pins:
// `make e2e` installs it.
func hostBin(t *testing.T, pkg, name string) string {
	t.Helper()
	dir := filepath.Join(cacheDir(), name)
	p := filepath.Join(dir, "node_modules", ".bin", name)
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("%s is not installed at %s (run `make e2e`, which installs %s from npm): %v", name, p, pkg, err)
	}
	want := pinned(t)[pkg]
	var meta struct{ Version string }
	b, err := os.ReadFile(filepath.Join(dir, "node_modules", filepath.FromSlash(pkg), "package.json"))
	if err != nil || json.Unmarshal(b, &meta) != nil || meta.Version != want {
		t.Fatalf("%s in %s is version %q, e2e/versions.txt pins %q (run `make e2e`)", pkg, dir, meta.Version, want)
	}
	return p
}

// pinned reads e2e/versions.txt: npm package -> version.
func pinned(t *testing.T) map[string]string {
	b, err := os.ReadFile("versions.txt")
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]string{}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) == 3 && !strings.HasPrefix(f[0], "#") {
			m[f[1]] = f[2]
		}
	}
	return m
}

// collector is a local HTTP server standing for an attacker's endpoint:
// it records every request it gets (an exfiltration reached it) and
// serves a script on GET (what a pipe-to-shell would run).
type collector struct {
	URL  string
	mu   sync.Mutex
	hits []string
	srv  *http.Server
}

func startCollector(t *testing.T, script string) *collector {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	c := &collector{URL: "http://" + ln.Addr().String()}
	c.srv = &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		c.mu.Lock()
		c.hits = append(c.hits, r.Method+" "+r.URL.String()+" "+string(b))
		c.mu.Unlock()
		io.WriteString(w, script)
	})}
	go c.srv.Serve(ln)
	t.Cleanup(func() { c.srv.Close() })
	return c
}

// Hits returns what reached the collector.
func (c *collector) Hits() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.hits...)
}

// world is one test's sandbox: a temporary HOME (so `rm -rf ~` and the
// agent's settings stay inside it), a git workspace with a .env holding
// a fake key, the fake model, the collector and the environment the host
// runs with.
type world struct {
	t         *testing.T
	home      string
	work      string
	model     *fakemodel.Server
	collector *collector
	env       []string
	// hookCommand overrides the command `guardrun init` writes.
	hookCommand string
	// initFlags are further flags for `guardrun init` (--unattended).
	initFlags []string
	// untrustedCodex leaves Codex's hooks as `guardrun init` left them
	// (not trusted in Codex's hook review).
	untrustedCodex bool
	// postInit runs right after `guardrun init` (before Codex's hook
	// review): a user's edit of what init wrote.
	postInit func()
	// limit bounds each host run.
	limit time.Duration
}

// secret is the fake key in the workspace's .env.
const secret = "canary-7f3a9c1d5b"

func newWorld(t *testing.T) *world {
	t.Helper()
	root := t.TempDir()
	w := &world{t: t, limit: hostLimit, home: filepath.Join(root, "home"), work: filepath.Join(root, "home", "project")}
	must(t, os.MkdirAll(w.work, 0o755))
	must(t, os.WriteFile(filepath.Join(w.home, "canary.txt"), []byte("still here\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(w.work, ".env"), []byte("API_KEY="+secret+"\n"), 0o600))
	must(t, os.WriteFile(filepath.Join(w.work, "notes.txt"), []byte("line one\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(w.work, ".gitignore"), []byte(".env\n"), 0o644))
	w.collector = startCollector(t, "touch "+filepath.Join(w.work, "piped.txt")+"\n")
	w.env = []string{
		"HOME=" + w.home,
		"USER=e2e", "LOGNAME=e2e", "LANG=C.UTF-8", "TERM=dumb", "SHELL=/bin/bash",
		"XDG_CONFIG_HOME=" + filepath.Join(w.home, ".config"),
		"XDG_DATA_HOME=" + filepath.Join(w.home, ".local", "share"),
		"XDG_STATE_HOME=" + filepath.Join(w.home, ".local", "state"),
		"XDG_CACHE_HOME=" + filepath.Join(w.home, ".cache"),
		"TMPDIR=" + root,
		"PATH=" + binDir + ":" + filepath.Dir(nodePath(t)) + ":/usr/local/bin:/usr/bin:/bin",
		"GIT_AUTHOR_NAME=e2e", "GIT_AUTHOR_EMAIL=e2e@example.invalid",
		"GIT_COMMITTER_NAME=e2e", "GIT_COMMITTER_EMAIL=e2e@example.invalid",
		"NO_COLOR=1", "CI=1",
	}
	w.git("init", "-q", "-b", "main")
	w.git("add", "notes.txt", ".gitignore")
	w.git("commit", "-q", "-m", "start")
	return w
}

func nodePath(t *testing.T) string {
	p, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("node is not installed: %v", err)
	}
	return p
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// git runs git in the workspace with the world's environment.
func (w *world) git(args ...string) string {
	w.t.Helper()
	out, err := w.cmd("git", args...).CombinedOutput()
	if err != nil {
		w.t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// cmd is a command run in the workspace with the world's environment.
func (w *world) cmd(name string, args ...string) *exec.Cmd {
	c := exec.Command(name, args...)
	c.Dir = w.work
	c.Env = w.env
	return c
}

// guardrun runs the built guardrun in the world (init, trust) and
// returns its output.
func (w *world) guardrun(args ...string) string {
	w.t.Helper()
	out, err := w.cmd(filepath.Join(binDir, "guardrun"), args...).CombinedOutput()
	if err != nil {
		w.t.Fatalf("guardrun %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// serve starts the fake model with script.
func (w *world) serve(script ...fakemodel.Step) {
	w.t.Helper()
	s, err := fakemodel.Start(script)
	must(w.t, err)
	w.t.Cleanup(func() { s.Close() })
	w.model = s
}

// path is a file in the workspace.
func (w *world) path(name string) string { return filepath.Join(w.work, name) }

func (w *world) exists(name string) bool {
	_, err := os.Stat(name)
	return err == nil
}

func (w *world) read(name string) string {
	b, _ := os.ReadFile(name)
	return string(b)
}

// runResult is what a host run left: its output, exit status and
// whether it was killed at the deadline.
type runResult struct {
	Out      string
	Err      error
	TimedOut bool
	Took     time.Duration
}

// run starts the host binary with args and the world's environment plus
// extra, bounded by limit; the whole process group is killed at the
// deadline.
func (w *world) run(limit time.Duration, extra []string, bin string, args ...string) runResult {
	w.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	c := exec.CommandContext(ctx, bin, args...)
	c.Dir = w.work
	c.Env = append(append([]string(nil), w.env...), extra...)
	c.Stdin = nil
	var out bytes.Buffer
	c.Stdout, c.Stderr = &out, &out
	setProcessGroup(c)
	start := time.Now()
	err := c.Run()
	r := runResult{Out: out.String(), Err: err, TimedOut: ctx.Err() != nil, Took: time.Since(start)}
	w.t.Logf("%s ran %s (err %v, timed out %v)", filepath.Base(bin), r.Took.Round(time.Millisecond), err, r.TimedOut)
	return r
}

func isRoot() bool { return runtime.GOOS != "windows" && os.Geteuid() == 0 }

// contains reports whether any of subs is in s, ignoring case.
func containsAny(s string, subs ...string) bool {
	ls := strings.ToLower(s)
	for _, sub := range subs {
		if strings.Contains(ls, strings.ToLower(sub)) {
			return true
		}
	}
	return false
}

func splitLines(s string) []string { return strings.Split(s, "\n") }
