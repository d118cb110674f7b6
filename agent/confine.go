package agent

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/guardrun/guardrun/check"
	"github.com/guardrun/guardrun/interp/value"
)

// Confinement is what the policies chose, in `@confine`, for the shell
// commands the hook runs under `guardrun exec` (docs/agents.md): code
// guardrun cannot see into, and every command after untrusted content.
// The zero value is the starter profile: confined, no port kept once
// the session holds a secret, no secret revealed, writes anywhere but
// guardrun's own files.
type Confinement struct {
	// Off is set when a user policy says `var @confine = false`: the
	// hook decides shell calls without the kernel floor.
	Off bool
	// Ports are the TCP ports a command may still connect to once the
	// session holds a secret (a local database, a dev server).
	Ports []int
	// Reveal are the commands that may read secret paths all the same
	// (a test runner that loads .env).
	Reveal []Reveal
	// Writes confines writes to the workspace, temp and the caches.
	Writes bool
}

// Reveal lets a command read secret paths under the sandbox: a line
// whose every command begins with the words of Command (`npm test`
// matches `npm test -- --watch`, not `npm test; python3 -c …`).
type Reveal struct {
	Command []string
	// Paths are the secret paths it may read, relative to the workspace
	// or absolute.
	Paths []string
}

// confineKeys are the fields of @confine.
var confineKeys = []string{"ports", "reveal", "writes"}

// readConfine reads a policy's @confine. A workspace policy may only
// make the sandbox stricter (writes), never lift it (off, ports,
// reveal): those are the user's to grant.
func readConfine(vars func(string) (*value.Variable, bool), workspace bool) (Confinement, error) {
	var c Confinement
	v, ok := vars("confine")
	if !ok || v == nil {
		return c, nil
	}
	const shape = `@confine must be false or { ports: [n, …], reveal: { "COMMAND": ["PATH", …] }, writes: "workspace"|"anywhere" }`
	switch d := v.Data.(type) {
	case bool:
		if d {
			return c, nil
		}
		if workspace {
			return c, fmt.Errorf("@confine = false: a workspace policy can make the sandbox stricter, never turn it off (put it in your user policy)")
		}
		c.Off = true
		return c, nil
	case *value.Object:
		for _, k := range d.Keys {
			switch k {
			case "ports":
				if workspace {
					return c, fmt.Errorf("@confine.ports: a workspace policy cannot keep network ports open (put it in your user policy)")
				}
				a, ok := d.Values[k].([]any)
				if !ok {
					return c, fmt.Errorf("@confine.ports must be an array of TCP port numbers")
				}
				for _, it := range a {
					n, ok := it.(float64)
					if !ok || n != float64(int(n)) || n < 1 || n > 65535 {
						return c, fmt.Errorf("@confine.ports: %s is not a TCP port (1-65535)", value.Display(it))
					}
					c.Ports = append(c.Ports, int(n))
				}
			case "reveal":
				if workspace {
					return c, fmt.Errorf("@confine.reveal: a workspace policy cannot reveal secrets (put it in your user policy)")
				}
				o, ok := d.Values[k].(*value.Object)
				if !ok {
					return c, fmt.Errorf(`@confine.reveal must be an object of command → paths, e.g. { "npm test": [".env"] }`)
				}
				for _, cmd := range o.Keys {
					words := strings.Fields(cmd)
					if len(words) == 0 {
						return c, fmt.Errorf("@confine.reveal: an empty command would reveal to every line")
					}
					paths := strs(o, cmd)
					if a, ok := o.Values[cmd].([]any); !ok || len(paths) != len(a) || len(paths) == 0 {
						return c, fmt.Errorf("@confine.reveal[%q] must be a non-empty array of paths", cmd)
					}
					c.Reveal = append(c.Reveal, Reveal{Command: words, Paths: paths})
				}
			case "writes":
				switch d.Values[k] {
				case "workspace":
					c.Writes = true
				case "anywhere":
				default:
					return c, fmt.Errorf(`@confine.writes must be "workspace" or "anywhere", not %s`, value.Display(d.Values[k]))
				}
			default:
				return c, fmt.Errorf("@confine.%s is not a field of @confine%s (fields: %s)", k, didYouMean(k), strings.Join(confineKeys, ", "))
			}
		}
		return c, nil
	}
	return c, fmt.Errorf("%s", shape)
}

// didYouMean is ` (did you mean "x"?)` for the field of @confine
// nearest to k, or "".
func didYouMean(k string) string {
	if s := check.Suggest(k, confineKeys); s != "" {
		return fmt.Sprintf(" (did you mean %q?)", s)
	}
	return ""
}

// merge adds another policy's choices: off only if said, ports and
// reveals of every policy, writes confined if any policy confines them.
func (c Confinement) merge(o Confinement) Confinement {
	c.Off = c.Off || o.Off
	c.Ports = append(c.Ports, o.Ports...)
	sort.Ints(c.Ports)
	c.Reveal = append(c.Reveal, o.Reveal...)
	c.Writes = c.Writes || o.Writes
	return c
}

// Confinement is what the engine's policies chose for confined shell
// commands (@confine).
func (e *Engine) Confinement() Confinement {
	return e.confinement
}

// Revealed is the secret paths a line may read under the sandbox: those
// of the first reveal rule every command of the line matches (commands
// are the argv of each, as the policy's shell analysis reads them).
func (c Confinement) Revealed(commands [][]string) []string {
	if len(commands) == 0 {
		return nil
	}
	for _, r := range c.Reveal {
		all := true
		for _, argv := range commands {
			if len(argv) < len(r.Command) || !slices.Equal(argv[:len(r.Command)], r.Command) {
				all = false
				break
			}
		}
		if all {
			return r.Paths
		}
	}
	return nil
}
