package hooks_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/guardrun/guardrun/interp/hooks"
)

// An open hook's own operations still meet the exclusive hooks (a user
// hook body is guarded), while the open hook itself is skipped for
// operations another hook causes.
func TestOpenHooksDoNotCountAsRunning(t *testing.T) {
	var log []string
	m := hooks.NewManager()
	inner := &hooks.Call{Op: &hooks.OperationContext{Type: "run"}}
	m.RegisterPreOpen("user", func(c *hooks.Call) (hooks.Decision, error) {
		log = append(log, "user:"+c.Op.Type)
		require.False(t, m.InHook())
		if c.Op.Type == "exe" {
			m.RunPre(inner)
		}
		return hooks.Decision{}, nil
	})
	m.RegisterPreExclusive("guards", func(c *hooks.Call) (hooks.Decision, error) {
		log = append(log, "guards:"+c.Op.Type)
		if c.Op.Type == "exe" {
			// A guard's helper operation: neither exclusive nor open hooks.
			m.RunPre(&hooks.Call{Op: &hooks.OperationContext{Type: "show"}})
		}
		return hooks.Decision{}, nil
	})
	m.RunPre(&hooks.Call{Op: &hooks.OperationContext{Type: "exe"}})
	require.Equal(t, []string{"user:exe", "user:run", "guards:run", "guards:exe"}, log)
}
