package interp

import (
	"strings"

	"github.com/guardrun/guardrun/ast"
	"github.com/guardrun/guardrun/interp/guard"
	"github.com/guardrun/guardrun/interp/value"
)

// overrideOf reads the `guards` key of a with-clause (SPEC §5.14):
// `false` disables non-privileged guards, `{ only: ["@a"] }` keeps the
// listed named guards, `{ except: ["@a"] }` drops them. A malformed
// setting is an error: a mistyped override must not silently disable or
// keep guards.
func (in *interp) overrideOf(e *env, w *ast.WithClause) (*guard.Override, error) {
	if w == nil || w.Options == nil {
		return nil, nil
	}
	for _, en := range w.Options.Entries {
		if en.Key != "guards" {
			continue
		}
		v, err := in.evalExpr(e, en.Value)
		if err != nil {
			return nil, err
		}
		pos := en.Value.Position()
		switch d := v.Data.(type) {
		case bool:
			if d {
				return nil, nil
			}
			return &guard.Override{Disabled: true}, nil
		case *value.Object:
			o := &guard.Override{}
			for _, k := range d.Keys {
				list, ok := d.Values[k].([]any)
				if !ok || (k != "only" && k != "except") {
					return nil, newError(KindGuard, pos, `write guards: false, guards: { only: ["@name"] } or guards: { except: ["@name"] }`,
						"Invalid guards override: unknown key or non-list value %q", k)
				}
				names := make([]string, 0, len(list))
				for _, x := range list {
					s, ok := x.(string)
					if !ok || !strings.HasPrefix(s, "@") {
						return nil, newError(KindGuard, pos, `name guards with their @: only: ["@audit"]`,
							"Guard override entries must be strings starting with @, got %s", value.ToJSON(x, false))
					}
					names = append(names, s[1:])
				}
				if k == "only" {
					o.Only = names
				} else {
					o.Except = names
				}
			}
			if o.Only != nil && o.Except != nil {
				return nil, newError(KindGuard, pos, "use either only or except", "Guard override cannot specify both only and except")
			}
			return o, nil
		}
		return nil, newError(KindGuard, pos, `write guards: false or guards: { only: [...] } / { except: [...] }`,
			"Invalid guards override value: %s", value.ToJSON(v.Data, false))
	}
	return nil, nil
}

// withOverride returns e with the override of w applied.
func (in *interp) withOverride(e *env, w *ast.WithClause) (*env, error) {
	o, err := in.overrideOf(e, w)
	if err != nil || o == nil {
		return e, err
	}
	c := *e
	c.override = o
	return &c, nil
}

// announceOverride writes the `[Guard Override]` line of an operation
// whose guards were disabled.
func (in *interp) announceOverride(o *guard.Override) {
	if o == nil || !o.Disabled {
		return
	}
	if in.guardReg.HasPrivileged() {
		in.out.writeStderr("[Guard Override] Non-privileged guards disabled for this operation\n")
		return
	}
	in.out.writeStderr("[Guard Override] All guards disabled for this operation\n")
}
