package interp

import (
	"github.com/guardrun/guardrun/interp/guard"
	"github.com/guardrun/guardrun/interp/policy"
)

// policyGuardOpts adds the guards the run's policies turn off (`guards:
// { except: [...] }`) to an operation's guard settings.
func (in *interp) policyGuardOpts(o guard.Options) guard.Options {
	if names := in.policy.GuardExcept(); len(names) > 0 {
		o.Override = o.Override.Excepting(names)
	}
	return o
}

// checkGuardExcepts checks the `guards.except` entries of a policy
// directive's layers: they turn off guards of the policy file that
// declares them (not of a module it imports, whose guards are not yet
// the run's), each a guard declared or imported above the directive,
// and not a privileged one (privileged guards survive every override).
// fromModule is set for `import policy`, whose object is a module's.
func (in *interp) checkGuardExcepts(e *env, what string, layers []*policy.Config, fromModule bool) error {
	for _, cfg := range layers {
		for _, x := range cfg.GuardExcept {
			if fromModule || e.mod != in.main {
				return newError(KindPolicyConfig, x.Pos, "write guards: { except: [...] } in the policy file whose guards it turns off",
					"invalid %s: guards.except turns off guards of the policy file that declares it, not of a module it imports", what)
			}
			g, ok := in.guardReg.Lookup(x.Name)
			if !ok {
				hint := "name a guard declared or imported above this policy (import guards from \"./module.guard\" comes first)"
				if best := policy.Closest(x.Name, in.guardReg.Names()); best != "" {
					hint = "did you mean '@" + best + "'?"
				}
				return newError(KindPolicyConfig, x.Pos, hint, "invalid %s: guards.except names @%s, which is no guard of this policy", what, x.Name)
			}
			if g.Privileged {
				return newError(KindPolicyConfig, x.Pos, "a privileged guard survives every override: remove it, or its import, instead",
					"invalid %s: guards.except names @%s, a privileged guard", what, x.Name)
			}
		}
	}
	return nil
}

// Policy returns the Machine's composed policy: the agent engine reads
// the opt-ins it honours itself (protected.except) and words the opt-in
// a denial names from it.
func (m *Machine) Policy() *policy.Set { return &m.in.policy }

// GuardSkippable reports whether `guards: { except: ["@name"] }` would
// turn off the Machine's guard called name: it is one of its guards, and
// not privileged.
func (m *Machine) GuardSkippable(name string) bool {
	g, ok := m.in.guardReg.Lookup(name)
	return ok && !g.Privileged
}
