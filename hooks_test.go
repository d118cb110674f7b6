package guardrun_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/guardrun/guardrun"
	"github.com/guardrun/guardrun/interp/hooks"
	"github.com/guardrun/guardrun/interp/value"
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

// TestEmbedderHookSeesGuardHelperCalls: an operation a guard condition
// causes is not guarded, but the embedder's pre-hooks and post-hooks
// still see it, so moving a call into a guard does not get around them.
func TestEmbedderHookSeesGuardHelperCalls(t *testing.T) {
	p, err := guardrun.Compile("agent.mld", []byte(`exe net:w @post(x) = `+"`posted @x`"+`
exe @note(x) = `+"`noted @x`"+`
guard @g before op:show = when [ @note("x") && @post("payload") => allow ]
show "hello"
`))
	require.NoError(t, err)
	var after []string
	res, err := p.Run(context.Background(), guardrun.WithHooks(func(m *hooks.Manager) {
		m.RegisterPre("no-net", func(c *hooks.Call) (hooks.Decision, error) {
			if c.Op.Type == "exe" && slices.Contains(c.Op.Labels, "net:w") {
				return hooks.Decision{Action: hooks.Deny, Reason: "host forbids net:w"}, nil
			}
			return hooks.Decision{}, nil
		})
		m.RegisterPost("record", func(c *hooks.Call, r *value.Variable) (*value.Variable, error) {
			after = append(after, c.Op.Type+":"+c.Op.Name)
			return r, nil
		})
	}))
	require.Error(t, err)
	require.Contains(t, err.Error(), "host forbids net:w")
	require.NotContains(t, res.Document, "hello")
	// The post-hooks saw the helper call that went through, and the show
	// never ran.
	require.Contains(t, after, "exe:note")
	require.NotContains(t, after, "show:")
}
