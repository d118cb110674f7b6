package guardrun_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/guardrun/guardrun"
	"github.com/guardrun/guardrun/interp/hooks"
)

// TestEmbedderHookDeniesToolCall: a host registers a pre-hook that refuses
// secret data flowing into exes labelled net:w; the call fails with a
// positioned error, and the script's later output never appears.
func TestEmbedderHookDeniesToolCall(t *testing.T) {
	p, err := guardrun.Compile("agent.mld", []byte(`var secret @key = "sk-1"
exe net:w @send(body) = `+"`sent:@body`"+`
show @send("hello")
show @send(`+"`key=@key`"+`)
show "unreachable"
`))
	require.NoError(t, err)
	var seen []string
	res, err := p.Run(context.Background(), guardrun.WithHooks(func(m *hooks.Manager) {
		m.RegisterPre("no-exfil", func(c *hooks.Call) (hooks.Decision, error) {
			if c.Op.Type != "exe" {
				return hooks.Decision{}, nil
			}
			seen = append(seen, c.Op.Name+":"+c.Op.Subtype)
			for _, l := range c.Op.Labels {
				if l != "net:w" {
					continue
				}
				for _, in := range c.Inputs {
					if in.Security.HasLabel("secret") {
						return hooks.Decision{Action: hooks.Deny, Reason: "secret data may not reach the network"}, nil
					}
				}
			}
			return hooks.Decision{}, nil
		})
	}))
	require.Error(t, err)
	var ge *guardrun.Error
	require.True(t, errors.As(err, &ge))
	require.Equal(t, 4, ge.Pos.Line)
	require.Contains(t, ge.Message, "secret data may not reach the network")
	require.Equal(t, "sent:hello\n", res.Document)
	// The definition is an operation too (subtype exeTemplate), then the
	// two calls.
	require.Equal(t, []string{"send:exeTemplate", "send:", "send:"}, seen)
}
