package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/guardrun/guardrun/hook"
	"github.com/guardrun/guardrun/sandbox"
)

// guardrunExec runs `guardrun exec args...` as its own process (the
// test binary, through TestMain) in dir with HOME home.
func guardrunExec(t *testing.T, dir, home string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	a, err := json.Marshal(append([]string{"exec"}, args...))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), runArgsEnv+"="+string(a), "HOME="+home, "TMPDIR="+dir, "XDG_CONFIG_HOME=", "XDG_STATE_HOME=", "XDG_CACHE_HOME=", "XDG_DATA_HOME=")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	if ee != nil {
		code = ee.ExitCode()
	}
	return out.String(), errb.String(), code
}

func execFixture(t *testing.T) (home, ws string) {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	home, ws = filepath.Join(root, "home"), filepath.Join(root, "home", "proj")
	for name, text := range map[string]string{".config/guardrun/policy.guard": "p\n", "proj/.env": "KEY=sk-exec-test-secret\n"} {
		p := filepath.Join(home, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return home, ws
}

// TestExecIsTheCommand: the exit status, stdout and stderr are the
// command's; a kernel refusal is the command's own EACCES.
func TestExecIsTheCommand(t *testing.T) {
	if _, err := sandbox.ABI(); err != nil {
		t.Skipf("the kernel lacks Landlock, guardrun exec refuses to run: %v", err)
	}
	home, ws := execFixture(t)
	stdout, stderr, code := guardrunExec(t, ws, home, "--", "bash", "-c", "echo out; echo err >&2; exit 7")
	if code != 7 || stdout != "out\n" || stderr != "err\n" {
		t.Errorf("got status %d, stdout %q, stderr %q; want 7, out, err", code, stdout, stderr)
	}
	_, stderr, code = guardrunExec(t, ws, home, "--profile", "protect", "--", "bash", "-c", `echo x >> "$(printf %s ~/.config/guard)run/policy.guard"`)
	if code != 1 || !strings.Contains(stderr, "Permission denied") {
		t.Errorf("a write of the policy: status %d, stderr %q; want 1 and EACCES", code, stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(home, ".config/guardrun/policy.guard")); string(b) != "p\n" {
		t.Errorf("the policy changed: %q", b)
	}
}

// TestExecFailsClosed: a profile that cannot be built runs nothing, and
// says why.
func TestExecFailsClosed(t *testing.T) {
	home, ws := execFixture(t)
	marker := filepath.Join(ws, "ran")
	for name, args := range map[string][]string{
		"unknown class":     {"--profile", "starter,nosuchclass", "--", "touch", marker},
		"missing workspace": {"--workspace", filepath.Join(ws, "nowhere"), "--", "touch", marker},
		"bad port":          {"--secret", "--allow-port", "http", "--", "touch", marker},
	} {
		t.Run(name, func(t *testing.T) {
			_, stderr, code := guardrunExec(t, ws, home, args...)
			if code == 0 {
				t.Fatalf("exited 0: %s", stderr)
			}
			if _, err := os.Stat(marker); err == nil {
				t.Fatalf("the command ran")
			}
			if name != "bad port" && (code != hook.ExitExecProfile || !strings.Contains(stderr, "did not run")) {
				t.Errorf("status %d, stderr %q; want %d and the reason", code, stderr, hook.ExitExecProfile)
			}
			if name != "bad port" {
				// The refusal is on the decision log too.
				b, _ := os.ReadFile(filepath.Join(home, ".local", "state", "guardrun", "decisions.jsonl"))
				last := strings.TrimSpace(string(b))
				last = last[strings.LastIndexByte(last, '\n')+1:]
				if !strings.Contains(last, `"event":"host:exec"`) || !strings.Contains(last, `"decision":"deny"`) || !strings.Contains(last, "did not run") {
					t.Errorf("the decision log's last record is not the refusal: %q", last)
				}
			}
		})
	}
	if _, stderr, code := guardrunExec(t, ws, home, "--", "no-such-command-here"); code != hook.ExitExecNotFound {
		t.Errorf("an unknown command: status %d, %s", code, stderr)
	}
	if _, _, code := guardrunExec(t, ws, home); code != exitUsage {
		t.Errorf("no command: status %d, want %d", code, exitUsage)
	}
}

// TestExecPlainUser: a user who is not root gets the workspace's
// secrets covered in a user namespace of guardrun exec's own, so the
// workspace root is not frozen: a file created there is read back. Run
// as root, the test runs guardrun exec as the user nobody (65534).
func TestExecPlainUser(t *testing.T) {
	if _, err := sandbox.ABI(); err != nil {
		t.Skipf("the kernel lacks Landlock, guardrun exec refuses to run: %v", err)
	}
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	home, ws := filepath.Join(root, "home"), filepath.Join(root, "home", "proj")
	bin := filepath.Join(root, "bin", "guardrun-test")
	files := map[string]string{".config/guardrun/policy.guard": "p\n", "proj/.env": "KEY=sk-plain-user-secret-0123\n", "proj/README.md": "readme\n"}
	for name, text := range files {
		p := filepath.Join(home, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	self, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, self, 0o755); err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal([]string{"exec", "--", "bash", "-c", `cat .env; echo "[$?]"; echo new > new.txt && cat new.txt; echo evil >> ~/.config/guardrun/policy.guard`})
	cmd := exec.Command(bin, "-test.run=^$")
	cmd.Dir = ws
	cmd.Env = append(os.Environ(), runArgsEnv+"="+string(a), "HOME="+home, "TMPDIR="+ws, "XDG_CONFIG_HOME=", "XDG_STATE_HOME=", "XDG_CACHE_HOME=", "XDG_DATA_HOME=")
	if os.Geteuid() == 0 {
		for _, d := range []string{root, filepath.Dir(root)} {
			if err := os.Chmod(d, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		if err := filepath.Walk(home, func(p string, _ os.FileInfo, err error) error {
			if err != nil {
				return err
			}
			return os.Lchown(p, 65534, 65534)
		}); err != nil {
			t.Fatal(err)
		}
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	}
	out, err := cmd.CombinedOutput()
	if strings.Contains(string(out), "sk-plain-user-secret") {
		t.Fatalf("the secret was read: %s", out)
	}
	if !strings.Contains(string(out), "[0]\nnew\n") {
		t.Errorf("want .env covered (read as empty) and new.txt read back at the workspace root; got %v:\n%s", err, out)
	}
	if !strings.Contains(string(out), "Permission denied") {
		t.Errorf("the policy write was not refused: %s", out)
	}
	if b, _ := os.ReadFile(filepath.Join(home, ".config/guardrun/policy.guard")); string(b) != "p\n" {
		t.Errorf("the policy changed: %q", b)
	}
}
