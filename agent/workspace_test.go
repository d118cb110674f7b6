package agent

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// wsPolicy asks the workspace builtins about the file an edit names:
// whether it lies in the docs scope, and its first line.
const wsPolicy = `var tools @agent = { Edit: { labels: ["fs:w"] } }
exe @read(p) = ` + "`read: @readWorkspaceFile(@p)`" + `
guard @ws before fs:w = when [
  @pathMatches(@mx.args.file_path, ["docs/**"]) => deny "in docs"
  @readWorkspaceFile(@mx.args.file_path) == null => deny "no such file"
  * => deny "read" with { context: @read(@mx.args.file_path) }
]
`

// TestWorkspaceOfEvent: the workspace builtins are confined to the
// repository enclosing the event's working directory (or the working
// directory itself, or Config.Workspace), not to the policy's own
// directory, and relative paths start at the workspace.
func TestWorkspaceOfEvent(t *testing.T) {
	policyDir, repo, plain := t.TempDir(), t.TempDir(), t.TempDir()
	for _, d := range []string{filepath.Join(repo, ".git"), filepath.Join(repo, "src"), filepath.Join(repo, "docs")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	write := func(p, s string) {
		t.Helper()
		if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(repo, "src", "a.go"), "package a")
	write(filepath.Join(plain, "b.txt"), "plain b")
	write(filepath.Join(policyDir, "own.txt"), "policy's own")

	cases := []struct {
		name, workspace, cwd, path, want string
	}{
		{"absolute path in the repository", "", filepath.Join(repo, "src"), filepath.Join(repo, "src", "a.go"), "read: package a"},
		{"relative to the repository root, not the cwd", "", filepath.Join(repo, "src"), "src/a.go", "read: package a"},
		{"scope globs relative to the repository", "", filepath.Join(repo, "src"), filepath.Join(repo, "docs", "x.md"), "in docs"},
		{"missing file is null", "", repo, filepath.Join(repo, "src", "new.go"), "no such file"},
		{"outside the workspace is refused", "", repo, filepath.Join(plain, "b.txt"), "outside the base directory"},
		{"no repository: the cwd", "", plain, "b.txt", "read: plain b"},
		{"Config.Workspace wins", plain, repo, filepath.Join(plain, "b.txt"), "read: plain b"},
		{"no cwd: the policy's base directory", "", "", "own.txt", "read: policy's own"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e, err := New(context.Background(), Config{Dir: policyDir, Workspace: c.workspace, Store: NewMemoryStore(),
				Policies: []Policy{{Name: filepath.Join(policyDir, "policy.guard"), Source: []byte(wsPolicy)}}})
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			d := e.Decide(context.Background(), Event{Kind: ToolBefore, Session: "s", Tool: "Edit", Cwd: c.cwd,
				Input: map[string]any{"file_path": c.path}})
			got := d.Reason
			for _, n := range d.Context {
				got += " " + n.Text
			}
			if d.Outcome != Deny || !strings.Contains(got, c.want) {
				t.Fatalf("got %s %q, want a denial containing %q", d.Outcome, got, c.want)
			}
		})
	}
}
