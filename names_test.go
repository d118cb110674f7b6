package guardrun

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/guardrun/guardrun/check"
	"github.com/guardrun/guardrun/interp"
	"github.com/guardrun/guardrun/interp/guard"
	"github.com/guardrun/guardrun/interp/hooks"
	"github.com/guardrun/guardrun/interp/value"
	"github.com/guardrun/guardrun/lang"
	"github.com/stretchr/testify/require"
)

// probeKeys records the keys of the objects passed to the exe @probe: a
// guard, a stage or a hook body passes it @mx, @mx.op and @mx.guard, and
// the embedder's hook (which sees helper calls too) reads what the
// evaluator built.
type probeKeys struct{ mx, op, guard, value map[string]bool }

func (p *probeKeys) hook(m *hooks.Manager) {
	m.RegisterPre("probe", func(c *hooks.Call) (hooks.Decision, error) {
		if c.Op == nil || (c.Op.Name != "probe" && c.Op.Name != "probeValue") {
			return hooks.Decision{Action: hooks.Continue}, nil
		}
		into := []map[string]bool{p.mx, p.op, p.guard}
		if c.Op.Name == "probeValue" {
			into = []map[string]bool{p.value, p.value, p.value}
		}
		for i, into := range into {
			if i < len(c.Inputs) && c.Inputs[i] != nil {
				if o, ok := c.Inputs[i].Data.(*value.Object); ok {
					for _, k := range o.Keys {
						into[k] = true
					}
				}
			}
		}
		return hooks.Decision{Action: hooks.Continue}, nil
	})
}

// The @mx fields the evaluator builds, in every context that adds some (a
// before and an after guard of an agent decision with its session and
// tools, a pipeline stage with retries, a hook body, a parallel group),
// are the language's table (lang.MxFields, OpFields, GuardFields), which
// check reads: no field the evaluator has is unknown to check, and the
// table lists no field the evaluator never builds.
func TestMxFieldsAreTheTable(t *testing.T) {
	p := &probeKeys{map[string]bool{}, map[string]bool{}, map[string]bool{}, map[string]bool{}}
	policySrc := `exe @probe(m, o, g) = "x"
guard @pre before op:exe = when [
  @mx.op.name != "probe" && @probe(@mx, @mx.op, @mx.guard) == "y" => deny "never"
  * => allow
]
guard @post after op:exe = when [
  @mx.op.name != "probe" && @probe(@mx, @mx.op, @mx.guard) == "y" => deny "never"
  * => allow
]
`
	prg, err := Compile("p.guard", []byte(policySrc))
	require.NoError(t, err)
	m, err := prg.Load(context.Background(), WithDir(t.TempDir()), WithStateDir(t.TempDir()), WithHooks(p.hook))
	require.NoError(t, err)
	defer m.Close()
	session := func() *value.Variable { o := value.NewObject(); o.Set("id", "s"); return value.New(o) }
	tools := func() *value.Object { o := value.NewObject(); o.Set("calls", []any{}); return o }
	o := interp.Operation{Op: &hooks.OperationContext{Type: "exe", Name: "Bash", Command: "ls", Target: "t"}, Session: session, Tools: tools}
	require.Equal(t, guard.Allow, m.Before(context.Background(), o).Action)
	out := value.New("done")
	require.Equal(t, guard.Allow, m.After(context.Background(), o, out).Action)

	script := `exe @probe(m, o, g) = "x"
exe @stage(input) = when [
  @mx.try < 2 => retry "again"
  * => @probe(@mx, @mx.op)
]
var @r = "v" | @stage
hook @h before op:exe = when [
  @mx.op.name == "f" => @probe(@mx, @mx.op)
]
exe @f(x) = "f"
var @g = @f("a")
var @par = for parallel(2) @i in [1, 2] => @probe(@mx)
exe @probeValue(a, b, c) = "x"
exe @up(s) = @s | @upper
var @file = <data.md>
var @obj = {"a": 1}
var @went = @up("x")
var @pv = @probeValue(@file.mx, @obj.mx, @went.mx)
var secret @k = "v"
guard @dg before secret = when [ @mx.op.name == "fd" => deny "no"  * => allow ]
exe @fd(a) = when [ denied => @probe(@mx, @mx.op, @mx.guard)  * => "ok" ]
var @dd = @fd(@k)
policy @pol = { defaults: { rules: ["no-secret-exfil"] }, operations: { exfil: ["net:w"] } }
exe net:w @send(a) = when [ denied => @probe(@mx, @mx.op, @mx.guard)  * => "sent" ]
var @sent = @send(@k)
show @r
`
	sp, err := Compile("s.mld", []byte(script))
	require.NoError(t, err)
	work := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(work, "data.md"), []byte("---\ntitle: t\n---\nbody\n"), 0o644))
	_, err = sp.Run(context.Background(), WithDir(work), WithStateDir(t.TempDir()), WithHooks(p.hook))
	require.NoError(t, err)

	for _, tc := range []struct {
		what  string
		built map[string]bool
		table []string
	}{{"@mx", p.mx, lang.MxFields}, {"@mx.op", p.op, lang.OpFields}, {"@mx.guard", p.guard, lang.GuardFields},
		{"a value's .mx", p.value, lang.ValueMxFields}} {
		if tc.what == "a value's .mx" {
			// Some fields are read alone, never part of the whole object
			// (an object's keys, a value's tools): interp's
			// TestValueMxFieldsAreTheTable reads each.
			tc.table = lang.ValueMxShown
			for k := range tc.built {
				if !slices.Contains(lang.ValueMxFields, k) {
					t.Errorf("a value's .mx field the evaluator builds but the table (package lang) lacks: %s", k)
				}
			}
			tc.built = maps.Clone(tc.built)
			for k := range tc.built {
				if !slices.Contains(tc.table, k) {
					delete(tc.built, k)
				}
			}
		}
		var extra, never []string
		for k := range tc.built {
			if !slices.Contains(tc.table, k) {
				extra = append(extra, k)
			}
		}
		for _, k := range tc.table {
			if !tc.built[k] {
				never = append(never, k)
			}
		}
		sort.Strings(extra)
		sort.Strings(never)
		if len(extra) > 0 {
			t.Errorf("%s fields the evaluator builds but the table (package lang) lacks: %v", tc.what, extra)
		}
		if len(never) > 0 {
			t.Errorf("%s fields the table lists but no probe saw built: %v", tc.what, never)
		}
	}

	// check accepts every field and builtin of the table in a guard.
	var b strings.Builder
	b.WriteString("guard @g before op:exe = when [\n")
	for _, f := range lang.MxFields {
		b.WriteString("  @mx." + f + " == \"x\" => deny \"no\"\n")
	}
	for _, f := range lang.OpFields {
		b.WriteString("  @mx.op." + f + " == \"x\" => deny \"no\"\n")
	}
	for _, f := range lang.GuardFields {
		b.WriteString("  @mx.guard." + f + " == \"x\" => deny \"no\"\n")
	}
	for _, f := range lang.ValueMxFields {
		b.WriteString("  @input.mx." + f + " == \"x\" => deny \"no\"\n")
	}
	for _, f := range lang.Builtins() {
		b.WriteString("  @" + f + "(@mx.op.name) == \"x\" => deny \"no\"\n")
	}
	b.WriteString("  * => allow\n]\n")
	fs, err := check.Source("t.guard", []byte(b.String()), 0)
	require.NoError(t, err)
	for _, f := range fs {
		t.Errorf("check: %v", f)
	}
}
