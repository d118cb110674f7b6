package check

import (
	"strings"

	"github.com/guardrun/guardrun/ast"
	"github.com/guardrun/guardrun/interp/policy"
)

// covered reports whether a guard or a policy rule can act when a value
// labelled label reaches s.
func (c *checker) covered(label string, s sink) bool {
	for _, g := range c.guardList {
		if c.guardCovers(g, label, s) {
			return true
		}
	}
	for _, p := range c.policies {
		if c.policyCovers(p, label, s) {
			return true
		}
	}
	return false
}

func (c *checker) guardCovers(g *ast.GuardDirective, label string, s sink) bool {
	t := strings.ToLower(g.Trigger)
	sees := false
	switch {
	case t == strings.ToLower(label):
		sees = true
	case strings.HasPrefix(t, "op:"):
		v := t[3:]
		sees = s.keys[v] || s.word != "" && (v == "cmd:"+s.word || strings.HasPrefix(v, "cmd:"+s.word+":"))
	case strings.HasPrefix(t, "@"):
		sees = s.exe != "" && t[1:] == strings.ToLower(s.exe)
	default:
		sees = s.keys[t] // a data guard on an exe label sees its calls
	}
	return sees && c.canStop(g, label)
}

// canStop reports whether a guard has an arm that can deny, retry or
// change the value when label flows through it. An arm whose condition
// names other labels only ("pii") and not this one does not count.
func (c *checker) canStop(g *ast.GuardDirective, label string) bool {
	for _, arm := range g.Body.Arms {
		if arm.Let || isPlainAllow(arm.Action) {
			continue
		}
		if arm.Kind != ast.ArmCond {
			return true
		}
		named := false
		for _, s := range stringsIn(arm.Cond) {
			if s == label {
				return true
			}
			if c.labels[s] || dataLabels.has(s) {
				named = true
			}
		}
		if !named {
			return true
		}
	}
	return false
}

func isPlainAllow(n ast.Node) bool {
	a, ok := n.(*ast.AllowExpr)
	return ok && a.Value == nil && a.With == nil
}

// policyCovers reads a policy object literal: defaults.rules with the
// built-in label-flow rules, operations mapping exe labels to risk
// classes, and labels.<label>.deny lists.
func (c *checker) policyCovers(p *ast.PolicyDirective, label string, s sink) bool {
	o, ok := p.Value.(*ast.ObjectLit)
	if !ok {
		return true // a computed policy: assume it may cover anything
	}
	classes := map[string]bool{}
	for _, l := range s.labels {
		classes[l] = true
		if head, _, ok := strings.Cut(l, ":"); ok {
			classes[head] = true
		}
	}
	if ops := entry(o, "operations"); ops != nil {
		if oo, ok := ops.(*ast.ObjectLit); ok {
			for _, e := range oo.Entries {
				for _, l := range stringsIn(e.Value) {
					if contains(s.labels, l) {
						classes[e.Key] = true
					}
				}
			}
		}
	}
	if def, ok := entry(o, "defaults").(*ast.ObjectLit); ok {
		for _, r := range stringsIn(entry(def, "rules")) {
			if l, class, ok := policy.RuleFlow(r); ok && l == label && classes[class] {
				return true
			}
		}
	}
	if ls, ok := entry(o, "labels").(*ast.ObjectLit); ok {
		if rules, ok := entry(ls, label).(*ast.ObjectLit); ok {
			for _, d := range stringsIn(entry(rules, "deny")) {
				d = strings.ToLower(strings.TrimPrefix(d, "op:"))
				if s.keys[d] || contains(s.labels, d) || s.word != "" && strings.HasPrefix(d, "cmd:"+s.word) {
					return true
				}
			}
		}
	}
	return false
}

func entry(o *ast.ObjectLit, key string) ast.Expr {
	if o == nil {
		return nil
	}
	for _, e := range o.Entries {
		if e.Key == key {
			return e.Value
		}
	}
	return nil
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
