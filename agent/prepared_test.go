package agent

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// A guard that calls a `template "x.att"` exe decides an agent event as it
// would in a run (the policy is loaded with a template parser).
func TestTemplateExeInDecision(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "why.att"), []byte("no @name here"), 0o644))
	src := `exe @why(name) = template "why.att"
guard @g before op:exe = when [
  @why(@mx.op.name) == "no Read here" => deny "templated"
  * => allow
]
`
	e, err := New(context.Background(), Config{Policies: []Policy{{Name: "p.guard", Source: []byte(src), Dir: dir}}, Store: NewMemoryStore()})
	require.NoError(t, err)
	defer e.Close()
	d := e.Decide(context.Background(), Event{Kind: ToolBefore, Session: "s", Tool: "Read", Input: map[string]any{"file_path": "/x"}})
	require.Equal(t, Deny, d.Outcome, d.Reason)
	require.Contains(t, d.Reason, "templated")
	d = e.Decide(context.Background(), Event{Kind: ToolBefore, Session: "s", Tool: "Glob", Input: map[string]any{"pattern": "*"}})
	require.Equal(t, Allow, d.Outcome, d.Reason)
}

// A policy given by source with no directory has no base directory (its
// file loads fail rather than read the working directory); one named by
// a file path is confined to that file's directory.
func TestPolicyBaseDir(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "f.txt"), []byte("x"), 0o644))
	t.Chdir(dir)
	src := []byte("var @f = <f.txt>\n")
	_, err := New(context.Background(), Config{Policies: []Policy{{Name: "p.guard", Source: src}}, Store: NewMemoryStore()})
	require.ErrorContains(t, err, "no base directory")
	e, err := New(context.Background(), Config{Policies: []Policy{{Name: filepath.Join(dir, "p.guard"), Source: src}}, Store: NewMemoryStore()})
	require.NoError(t, err)
	e.Close()
}
