package guardrun

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/guardrun/guardrun/interp"
	"github.com/guardrun/guardrun/interp/guard"
	"github.com/guardrun/guardrun/interp/hooks"
	"github.com/stretchr/testify/require"
)

// exeOp is a tool call named name for a Machine to decide.
func exeOp(name string) interp.Operation {
	return interp.Operation{Op: &hooks.OperationContext{Type: "exe", Name: name}}
}

// A guard that calls a `template "x.att"` exe decides inside a Machine as
// in a run: Load parses template files as Run does.
func TestLoadTemplateExe(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "why.att"), []byte("no @name here"), 0o644))
	src := `exe @why(name) = template "why.att"
guard @g before op:exe = when [
  @why(@mx.op.name) == "no Bad here" => deny "templated"
  * => allow
]
`
	prg, err := Compile("p.guard", []byte(src))
	require.NoError(t, err)
	m, err := prg.Load(context.Background(), WithDir(dir), WithStateDir(t.TempDir()))
	require.NoError(t, err)
	defer m.Close()

	v := m.Before(context.Background(), exeOp("Bad"))
	require.Equal(t, guard.Deny, v.Action, v.Reason)
	require.Equal(t, interp.ClassGuard, v.Class, v.Reason)
	require.Equal(t, "templated", v.Reason)
	v = m.Before(context.Background(), exeOp("Good"))
	require.Equal(t, guard.Allow, v.Action, v.Reason)
}

// A program compiled from memory and loaded without WithDir has no base
// directory, as in Run: it never reads the process's working directory.
func TestLoadMemoryProgramHasNoBaseDir(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "f.txt"), []byte("from the working directory"), 0o644))
	t.Chdir(dir)
	prg, err := Compile("p.guard", []byte("var @f = <f.txt>\nshow @f\n"))
	require.NoError(t, err)

	_, rerr := prg.Run(context.Background(), WithStateDir(t.TempDir()))
	require.Error(t, rerr)
	require.Contains(t, rerr.Error(), "no base directory")

	m, lerr := prg.Load(context.Background(), WithStateDir(t.TempDir()))
	if m != nil {
		doc, _ := m.Output()
		m.Close()
		t.Fatalf("Load read the working directory: %q", doc)
	}
	require.Error(t, lerr)
	require.Contains(t, lerr.Error(), "no base directory")

	// With WithDir it loads.
	m, lerr = prg.Load(context.Background(), WithDir(dir), WithStateDir(t.TempDir()))
	require.NoError(t, lerr)
	doc, _ := m.Output()
	m.Close()
	require.Contains(t, doc, "from the working directory")
}

// Load honours the options Run honours: the state directory, the
// writable-protected list, base-as-root paths and explanations with
// lineage.
func TestLoadHonoursRunOptions(t *testing.T) {
	ctx := context.Background()
	t.Run("WithStateDir", func(t *testing.T) {
		dir, state := t.TempDir(), t.TempDir()
		prg, err := Compile("p.guard", []byte("var secret @s = \"k\"\noutput @s to \"o.txt\"\n"))
		require.NoError(t, err)
		m, err := prg.Load(ctx, WithDir(dir), WithStateDir(state))
		require.NoError(t, err)
		m.Close()
		got, err := filepath.Glob(filepath.Join(state, "guardrun", "ledgers", "*", "audit.jsonl"))
		require.NoError(t, err)
		require.Len(t, got, 1, "the private ledger goes to the state directory given")
	})
	t.Run("WithWritableProtected", func(t *testing.T) {
		dir := t.TempDir()
		prg, err := Compile("p.guard", []byte("output \"x\" to \".git/info/exclude\"\n"))
		require.NoError(t, err)
		_, err = prg.Load(ctx, WithDir(dir), WithStateDir(t.TempDir()))
		require.Error(t, err, "protected by default")
		m, err := prg.Load(ctx, WithDir(dir), WithStateDir(t.TempDir()), WithWritableProtected(".git/info"))
		require.NoError(t, err)
		m.Close()
	})
	t.Run("WithBaseAsRoot", func(t *testing.T) {
		dir := t.TempDir()
		require.NoError(t, os.MkdirAll(filepath.Join(dir, "a"), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "a", "f.txt"), []byte("x"), 0o644))
		prg, err := Compile("p.guard", []byte("var @f = <a/f.txt>\nshow `@f.mx.absolute @f.mx.taint`\n"))
		require.NoError(t, err)
		m, err := prg.Load(ctx, WithDir(dir), WithStateDir(t.TempDir()), WithBaseAsRoot())
		require.NoError(t, err)
		doc, _ := m.Output()
		m.Close()
		require.Equal(t, `/a/f.txt ["src:file","dir:/a"]`, strings.TrimSpace(doc))
	})
	t.Run("WithExplain", func(t *testing.T) {
		prg, err := Compile("p.guard", []byte(`guard @g before op:exe = when [
  @mx.op.name == "Bad" => deny "no"
  * => allow
]
`))
		require.NoError(t, err)
		var got []Explanation
		m, err := prg.Load(ctx, WithDir(t.TempDir()), WithStateDir(t.TempDir()), WithExplain(func(x Explanation) { got = append(got, x) }))
		require.NoError(t, err)
		defer m.Close()
		v := m.Before(ctx, exeOp("Bad"))
		require.Equal(t, guard.Deny, v.Action)
		require.Len(t, got, 1)
	})
}

// A loaded Machine keeps no goroutine: the heap watch covers its top
// level only, and a decision is bounded by its own context.
func TestLoadKeepsNoGoroutine(t *testing.T) {
	prg, err := Compile("p.guard", []byte(`guard @g before op:exe = when [
  @mx.op.name == "Bad" => deny "no"
  * => allow
]
`))
	require.NoError(t, err)
	dir, state := t.TempDir(), t.TempDir()
	before := runtime.NumGoroutine()
	var ms []*Machine
	for range 50 {
		m, err := prg.Load(context.Background(), WithDir(dir), WithStateDir(state))
		require.NoError(t, err)
		ms = append(ms, m)
	}
	defer func() {
		for _, m := range ms {
			m.Close()
		}
	}()
	// The watch starts its goroutine after its first 5 ms interval.
	time.Sleep(30 * time.Millisecond)
	after := runtime.NumGoroutine()
	require.LessOrEqual(t, after-before, 2, "goroutines before %d, after loading 50 machines %d", before, after)
	require.Equal(t, guard.Deny, ms[0].Before(context.Background(), exeOp("Bad")).Action)
}
