package rules_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/guardrun/guardrun/agent"
)

// TestStaleWrite: a file changed on disk between the session's read and
// its edit is refused as STALE_FILE; after the session reads it again, or
// after its own write, the edit goes through. Two layouts: the rules
// beside the workspace files (a workspace policy, whose base directory is
// the workspace), and the rules in a config directory of their own (the
// user policy) deciding events whose working directory lies in a
// repository elsewhere: the workspace is that repository.
func TestStaleWrite(t *testing.T) {
	t.Run("workspace-policy", func(t *testing.T) {
		dir := t.TempDir()
		testStaleWrite(t, dir, dir, "")
	})
	t.Run("user-policy", func(t *testing.T) {
		rules, repo := t.TempDir(), t.TempDir()
		if err := os.MkdirAll(filepath.Join(repo, ".git"), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(repo, "sub"), 0o700); err != nil {
			t.Fatal(err)
		}
		testStaleWrite(t, rules, repo, filepath.Join(repo, "sub"))
	})
}

func testStaleWrite(t *testing.T, dir, work, cwd string) {
	for _, m := range []string{"tools.guard", "stale.guard"} {
		b, err := os.ReadFile(m)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, m), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	file := filepath.Join(work, "main.go")
	write := func(s string) {
		if err := os.WriteFile(file, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("package main\n")
	src := "import { @agent } from \"./tools.guard\"\nimport guards from \"./stale.guard\"\n"
	e, err := agent.New(context.Background(), agent.Config{Dir: dir, Store: agent.NewMemoryStore(),
		Policies: []agent.Policy{{Name: filepath.Join(dir, "policy.guard"), Source: []byte(src)}}})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	decide := func(kind agent.Kind, tool string, in map[string]any) agent.Decision {
		return e.Decide(context.Background(), agent.Event{Kind: kind, Session: "s", Tool: tool, Input: in, Output: "ok", Cwd: cwd})
	}
	read := func() { decide(agent.ToolAfter, "Read", map[string]any{"file_path": file}) }
	edit := map[string]any{"file_path": file, "old_string": "main", "new_string": "app"}

	read()
	write("package main\n\nfunc init() {}\n") // someone else edits it
	d := decide(agent.ToolBefore, "Edit", edit)
	if d.Outcome != agent.Deny || !strings.HasPrefix(d.Reason, "STALE_FILE: the file changed") {
		t.Fatalf("edit of a changed file: got %s %q, want a STALE_FILE denial", d.Outcome, d.Reason)
	}
	if len(d.Context) != 1 || !strings.HasPrefix(d.Context[0].Text, "STALE_FILE "+file+": the session saw sha256 ") {
		t.Fatalf("the denial should name the file and both hashes: %+v", d.Context)
	}
	read()
	if d := decide(agent.ToolBefore, "Edit", edit); d.Outcome != agent.Allow {
		t.Fatalf("edit after reading again: got %s %q", d.Outcome, d.Reason)
	}
	// The session's own write is what it last saw of the file.
	write("package app\n")
	decide(agent.ToolAfter, "Edit", edit)
	if d := decide(agent.ToolBefore, "Write", map[string]any{"file_path": file, "content": "x"}); d.Outcome != agent.Allow {
		t.Fatalf("write after the session's own edit: got %s %q", d.Outcome, d.Reason)
	}
	// Gemini names the same edit `replace`.
	write("changed again\n")
	d = decide(agent.ToolBefore, "replace", map[string]any{"file_path": file, "old_string": "a", "new_string": "b"})
	if d.Outcome != agent.Deny {
		t.Fatalf("gemini replace of a changed file: got %s %q", d.Outcome, d.Reason)
	}
	// A file the write creates has nothing to be stale against.
	fresh := filepath.Join(work, "new.go")
	if d := decide(agent.ToolBefore, "Write", map[string]any{"file_path": fresh, "content": "x", "observed_content_hash": "00"}); d.Outcome != agent.Allow {
		t.Fatalf("write creating a file: got %s %q", d.Outcome, d.Reason)
	}
}

// TestStaleWriteRelativePath: Codex and Gemini name files relative to
// the working directory; the session keeps what it saw by absolute path,
// and the rule finds it under the relative name.
func TestStaleWriteRelativePath(t *testing.T) {
	r := staleRepo(t)
	file, write := r.file, r.write
	decide := func(kind agent.Kind, tool string, in map[string]any) agent.Decision {
		return r.decide(kind, tool, in, "ok")
	}
	for _, name := range []string{"src/main.go", "./src/main.go"} {
		decide(agent.ToolAfter, "read_file", map[string]any{"file_path": "src/main.go"})
		if d := decide(agent.ToolBefore, "replace", map[string]any{"file_path": name, "old_string": "main", "new_string": "app"}); d.Outcome != agent.Allow {
			t.Fatalf("%s: edit of the file as read: got %s %q", name, d.Outcome, d.Reason)
		}
		write("package main\n\nfunc init() {}\n")
		d := decide(agent.ToolBefore, "replace", map[string]any{"file_path": name, "old_string": "main", "new_string": "app"})
		if d.Outcome != agent.Deny || !strings.HasPrefix(d.Reason, "STALE_FILE") {
			t.Fatalf("%s: edit of a changed file: got %s %q, want STALE_FILE", name, d.Outcome, d.Reason)
		}
		if len(d.Context) != 1 || !strings.HasPrefix(d.Context[0].Text, "STALE_FILE "+file+": the session saw sha256 ") {
			t.Fatalf("%s: the denial should name the file and both hashes: %+v", name, d.Context)
		}
		write("package main\n")
	}
}

// TestStaleWritePatch: Codex's apply_patch names its files in the patch
// text; a file it updates that changed since the session saw it is
// refused as STALE_FILE, and the session's own patch is what it last saw.
func TestStaleWritePatch(t *testing.T) {
	r := staleRepo(t)
	file, write := r.file, r.write
	decide := func(kind agent.Kind, tool string, in map[string]any) agent.Decision {
		return r.decide(kind, tool, in, "ok")
	}
	patch := map[string]any{"input": "*** Begin Patch\n*** Update File: src/main.go\n@@\n-package main\n+package app\n*** End Patch\n"}
	decide(agent.ToolAfter, "Read", map[string]any{"file_path": file})
	if d := decide(agent.ToolBefore, "apply_patch", patch); d.Outcome != agent.Allow {
		t.Fatalf("patch of the file as read: got %s %q", d.Outcome, d.Reason)
	}
	write("package app\n") // the patch applied
	decide(agent.ToolAfter, "apply_patch", patch)
	if d := decide(agent.ToolBefore, "apply_patch", patch); d.Outcome != agent.Allow {
		t.Fatalf("patch after the session's own patch: got %s %q", d.Outcome, d.Reason)
	}
	write("package other\n") // someone else edits it
	d := decide(agent.ToolBefore, "apply_patch", patch)
	if d.Outcome != agent.Deny || !strings.HasPrefix(d.Reason, "STALE_FILE") {
		t.Fatalf("patch of a changed file: got %s %q, want STALE_FILE", d.Outcome, d.Reason)
	}
	if len(d.Context) != 1 || !strings.HasPrefix(d.Context[0].Text, "STALE_FILE "+file+": the session saw sha256 ") {
		t.Fatalf("the denial should name the file and both hashes: %+v", d.Context)
	}
	// A patch that only adds a file has nothing to be stale against.
	if d := decide(agent.ToolBefore, "apply_patch", map[string]any{"input": "*** Begin Patch\n*** Add File: src/new.go\n+package main\n*** End Patch\n"}); d.Outcome != agent.Allow {
		t.Fatalf("patch adding a file: got %s %q", d.Outcome, d.Reason)
	}
}

// TestStaleWriteAfterShellRead: a file the agent printed with the shell
// (`cat`, Codex's way of reading) counts as read: changed on disk since,
// its edit is STALE_FILE; unchanged, the edit goes through.
func TestStaleWriteAfterShellRead(t *testing.T) {
	r := staleRepo(t)
	file := r.file
	ev := func(kind agent.Kind, tool string, in map[string]any) agent.Decision {
		return r.decide(kind, tool, in, map[string]any{"stdout": "package main\n"})
	}
	ev(agent.ToolAfter, "Bash", map[string]any{"command": "cat src/main.go"})
	if d := ev(agent.ToolBefore, "Edit", map[string]any{"file_path": file, "old_string": "main", "new_string": "x"}); d.Outcome != agent.Allow {
		t.Fatalf("unchanged: %s %s", d.Outcome, d.Reason)
	}
	r.write("package other\n")
	if d := ev(agent.ToolBefore, "Edit", map[string]any{"file_path": file, "old_string": "main", "new_string": "x"}); d.Outcome != agent.Deny || !strings.Contains(d.Reason, "STALE_FILE") {
		t.Fatalf("changed since the shell read: %s %s", d.Outcome, d.Reason)
	}
}

// staleFixture is an engine of tools.guard and stale.guard (copied to a
// directory of their own, as a user policy is) and a repository beside
// it holding file, src/main.go ("package main").
type staleFixture struct {
	t          *testing.T
	e          *agent.Engine
	repo, file string
}

// write changes file on disk, as someone other than the agent does.
func (r *staleFixture) write(s string) {
	if err := os.WriteFile(r.file, []byte(s), 0o600); err != nil {
		r.t.Fatal(err)
	}
}

// decide decides an event of session "s" working in the repository.
func (r *staleFixture) decide(kind agent.Kind, tool string, in map[string]any, output any) agent.Decision {
	return r.e.Decide(context.Background(), agent.Event{Kind: kind, Session: "s", Tool: tool, Input: in, Output: output, Cwd: r.repo})
}

func staleRepo(t *testing.T) *staleFixture {
	t.Helper()
	rules, repo := t.TempDir(), t.TempDir()
	for _, d := range []string{".git", "src"} {
		if err := os.MkdirAll(filepath.Join(repo, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	for _, m := range []string{"tools.guard", "stale.guard"} {
		b, err := os.ReadFile(m)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(rules, m), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(repo, "src", "main.go"), []byte("package main\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	src := "import { @agent } from \"./tools.guard\"\nimport guards from \"./stale.guard\"\n"
	e, err := agent.New(context.Background(), agent.Config{Dir: rules, Store: agent.NewMemoryStore(),
		Policies: []agent.Policy{{Name: filepath.Join(rules, "policy.guard"), Source: []byte(src)}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Close)
	return &staleFixture{t: t, e: e, repo: repo, file: filepath.Join(repo, "src", "main.go")}
}
