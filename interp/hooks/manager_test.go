package hooks_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/guardrun/guardrun/interp/hooks"
	"github.com/guardrun/guardrun/interp/value"
)

func recordPre(log *[]string, name string, d hooks.Decision) hooks.PreHook {
	return func(*hooks.Call) (hooks.Decision, error) {
		*log = append(*log, name)
		return d, nil
	}
}

func TestPreHooksRunInOrderUntilOneStops(t *testing.T) {
	var log []string
	m := hooks.NewManager()
	m.RegisterPre("a", recordPre(&log, "a", hooks.Decision{}))
	m.RegisterPre("b", recordPre(&log, "b", hooks.Decision{Action: hooks.Deny, Reason: "no"}))
	m.RegisterPre("c", recordPre(&log, "c", hooks.Decision{}))
	d := m.RunPre(&hooks.Call{Op: &hooks.OperationContext{Type: "show"}})
	require.Equal(t, []string{"a", "b"}, log)
	require.Equal(t, hooks.Deny, d.Action)
	require.Equal(t, "b", d.Hook)
	require.Equal(t, "no", d.Reason)
}

func TestRetryStopsTheChain(t *testing.T) {
	var log []string
	m := hooks.NewManager()
	m.RegisterPre("r", recordPre(&log, "r", hooks.Decision{Action: hooks.Retry, Hint: "again"}))
	m.RegisterPre("never", recordPre(&log, "never", hooks.Decision{}))
	d := m.RunPre(&hooks.Call{})
	require.Equal(t, hooks.Retry, d.Action)
	require.Equal(t, "again", d.Hint)
	require.Equal(t, []string{"r"}, log)
}

func TestTransformedInputsReachLaterHooks(t *testing.T) {
	m := hooks.NewManager()
	repl := []*value.Variable{value.New("redacted")}
	m.RegisterPre("t", func(*hooks.Call) (hooks.Decision, error) {
		return hooks.Decision{Inputs: repl}, nil
	})
	var seen string
	m.RegisterPre("see", func(c *hooks.Call) (hooks.Decision, error) {
		seen = c.Inputs[0].Data.(string)
		return hooks.Decision{}, nil
	})
	d := m.RunPre(&hooks.Call{Inputs: []*value.Variable{value.New("secret")}})
	require.Equal(t, hooks.Continue, d.Action)
	require.Equal(t, "redacted", seen)
	require.Equal(t, repl, d.Inputs)
}

func TestPostHooksAllRunAndChain(t *testing.T) {
	m := hooks.NewManager()
	m.RegisterPost("x", func(_ *hooks.Call, r *value.Variable) (*value.Variable, error) {
		return value.New(r.Data.(string) + "x"), nil
	})
	m.RegisterPost("y", func(_ *hooks.Call, r *value.Variable) (*value.Variable, error) {
		return value.New(r.Data.(string) + "y"), nil
	})
	out, err := m.RunPost(&hooks.Call{}, value.New("v"))
	require.NoError(t, err)
	require.Equal(t, "vxy", out.Data)
}

func TestHookErrorsAndPanicsFailClosed(t *testing.T) {
	m := hooks.NewManager()
	m.RegisterPre("err", func(*hooks.Call) (hooks.Decision, error) { return hooks.Decision{}, errors.New("boom") })
	d := m.RunPre(&hooks.Call{})
	require.Equal(t, hooks.Abort, d.Action)
	require.Contains(t, d.Reason, "boom")
	require.True(t, d.Stops())

	m = hooks.NewManager()
	m.RegisterPre("panic", func(*hooks.Call) (hooks.Decision, error) { panic("kaboom") })
	d = m.RunPre(&hooks.Call{})
	require.Equal(t, hooks.Abort, d.Action)
	require.Contains(t, d.Reason, "kaboom")
	require.False(t, m.InHook(), "a panicking hook left the manager marked as running")

	m = hooks.NewManager()
	m.RegisterPost("panic", func(*hooks.Call, *value.Variable) (*value.Variable, error) { panic("post") })
	_, err := m.RunPost(&hooks.Call{}, value.New(1.0))
	require.ErrorContains(t, err, "post")
}

// TestNonReentrant: operations caused by a running hook skip only the
// exclusive hooks; every other hook sees them.
func TestNonReentrant(t *testing.T) {
	m := hooks.NewManager()
	var nestedPre hooks.Decision
	var nestedRes *value.Variable
	calls, hostSaw := 0, 0
	m.RegisterPreExclusive("guards", func(c *hooks.Call) (hooks.Decision, error) {
		calls++
		require.True(t, m.InHook())
		// A helper operation run from inside the hook.
		nestedPre = m.RunPre(&hooks.Call{})
		nestedRes, _ = m.RunPost(&hooks.Call{}, value.New("r"))
		return hooks.Decision{}, nil
	})
	m.RegisterPre("host", func(c *hooks.Call) (hooks.Decision, error) {
		hostSaw++
		if m.InHook() && hostSaw == 1 {
			return hooks.Decision{Action: hooks.Deny, Reason: "host says no"}, nil
		}
		return hooks.Decision{}, nil
	})
	m.RegisterPostExclusive("guards-after", func(_ *hooks.Call, r *value.Variable) (*value.Variable, error) {
		return value.New(r.Data.(string) + "+guards"), nil
	})
	m.RegisterPostAlways("taint", func(_ *hooks.Call, r *value.Variable) (*value.Variable, error) {
		return value.New(r.Data.(string) + "+taint"), nil
	})
	m.RegisterPost("host-after", func(_ *hooks.Call, r *value.Variable) (*value.Variable, error) {
		return value.New(r.Data.(string) + "+host"), nil
	})
	m.RunPre(&hooks.Call{})
	require.Equal(t, 1, calls, "the exclusive pre-hook re-entered itself")
	require.Equal(t, hooks.Deny, nestedPre.Action, "the host hook did not see the nested operation")
	require.Equal(t, "host", nestedPre.Hook)
	require.Equal(t, "r+taint+host", nestedRes.Data, "nested operation: every hook but the exclusive ones runs")
	require.False(t, m.InHook())

	out, err := m.RunPost(&hooks.Call{}, value.New("top"))
	require.NoError(t, err)
	require.Equal(t, "top+guards+taint+host", out.Data)
}

func TestContextStacks(t *testing.T) {
	var c hooks.Context
	r := value.NewRecord()
	c.AddTo(r)
	_, hasOp := r.Get("op")
	require.False(t, hasOp)
	require.False(t, c.InGuard())

	outer := &hooks.OperationContext{Type: "exe", Name: "outer"}
	inner := &hooks.OperationContext{Type: "show", Subtype: "showVariable"}
	_, _ = c.WithOp(outer, func() (*value.Variable, error) {
		_, _ = c.WithOp(inner, func() (*value.Variable, error) {
			r := value.NewRecord()
			c.AddTo(r)
			op, _ := r.Get("op")
			require.Equal(t, "show", op.Data.(*value.Object).Values["type"])
			return nil, nil
		})
		r := value.NewRecord()
		c.AddTo(r)
		op, _ := r.Get("op")
		require.Equal(t, "outer", op.Data.(*value.Object).Values["name"])
		return nil, nil
	})
	require.Equal(t, 0, c.Op.Len())

	g := value.NewRecord()
	g.SetData("name", "g")
	c.Guard.Push(hooks.GuardFrame{Fields: g.Variable()})
	require.True(t, c.InGuard())
	c.Guard.Pop()
	require.False(t, c.InGuard())
	require.Panics(t, func() { c.Guard.Pop() })
}
