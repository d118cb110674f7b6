package check

import (
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/guardrun/guardrun/ast"
	"github.com/guardrun/guardrun/internal/editdist"
	"github.com/guardrun/guardrun/lang"
)

// context says where a name is used: in a guard or policy an unknown name
// is an error (the guard fails closed and denies everything it covers);
// elsewhere it is a warning (the script fails when it gets there).
type context int

const (
	inScript context = iota
	inExe
	inGuard
	inPolicy
)

func (x context) severity() Severity {
	if x == inGuard || x == inPolicy {
		return Error
	}
	return Warning
}

// builtins are the names that exist without a declaration: the
// language's name table (package lang), which the interpreter reads too.
var builtins = &lazySet{names: slices.Concat(lang.Ambient, lang.Builtins(), lang.GuardHelpers, lang.PolicyHelpers)}

// mxFields are the fields of @mx, in guards, exes and pipelines.
var mxFields = &lazySet{names: lang.MxFields}

// valueMxFields are the fields of any value's `.mx` metadata.
var valueMxFields = &lazySet{names: lang.ValueMxFields}

// opFields are the fields of @mx.op.
var opFields = &lazySet{names: lang.OpFields}

// guardFields are the fields of @mx.guard.
var guardFields = &lazySet{names: lang.GuardFields}

// lazySet is a fixed set of names whose map is built on first use: the
// checker's tables cost nothing when a process that never checks a script
// (the hook) starts. A package-level &lazySet{names: []string{…}} is laid
// out by the compiler; no code runs for it at init.
type lazySet struct {
	names []string
	once  sync.Once
	m     map[string]bool
}

// all is the set as a map; callers must not modify it.
func (s *lazySet) all() map[string]bool {
	s.once.Do(func() { s.m = set(s.names...) })
	return s.m
}

// has reports whether name is in the set.
func (s *lazySet) has(name string) bool { return s.all()[name] }

func set(xs ...string) map[string]bool {
	out := map[string]bool{}
	for _, x := range xs {
		out[x] = true
	}
	return out
}

type scope struct {
	names  map[string]bool
	parent *scope
}

func (s *scope) child(names ...string) *scope {
	c := &scope{names: map[string]bool{}, parent: s}
	for _, n := range names {
		if n != "" {
			c.names[n] = true
		}
	}
	return c
}

func (s *scope) has(name string) bool {
	for ; s != nil; s = s.parent {
		if s.names[name] {
			return true
		}
	}
	return false
}

// resolveAll checks every name the script uses.
func (c *checker) resolveAll() {
	top := &scope{names: map[string]bool{}}
	for _, n := range c.doc.Body {
		c.resolve(n, top, inScript)
	}
}

// children returns n's direct children.
func children(n ast.Node) []ast.Node {
	var out []ast.Node
	ast.Inspect(n, func(m ast.Node) bool {
		if m == nil {
			return false
		}
		if m == n {
			return true
		}
		out = append(out, m)
		return false
	})
	return out
}

func (c *checker) resolve(n ast.Node, sc *scope, x context) {
	switch n := n.(type) {
	case nil:
	case *ast.Ref:
		c.ref(n, sc, x)
		for _, a := range n.Path {
			if a.Index != nil {
				c.resolve(a.Index, sc, x)
			}
			for _, arg := range a.Args {
				c.resolve(arg, sc, x)
			}
		}
	case *ast.ExeDirective:
		params := make([]string, len(n.Params))
		for i, p := range n.Params {
			params[i] = strings.TrimPrefix(p.Name, "@")
		}
		c.resolve(n.Body, sc.child(params...), inExe)
	case *ast.GuardDirective:
		c.resolve(n.Body, sc.child(), inGuard)
	case *ast.PolicyDirective:
		c.resolve(n.Value, sc, inPolicy)
	case *ast.WhenExpr:
		c.resolve(n.Subject, sc, x)
		in := sc.child()
		for _, arm := range n.Arms {
			c.resolve(arm.Cond, in, x)
			c.resolve(arm.Action, in, x)
			if l, ok := arm.Action.(*ast.LetStmt); ok {
				in.names[l.Name] = true
			}
		}
	case *ast.BlockExpr:
		in := sc.child()
		for _, st := range n.Stmts {
			c.resolve(st, in, x)
			switch st := st.(type) {
			case *ast.LetStmt:
				in.names[st.Name] = true
			case *ast.VarDirective:
				in.names[st.Name] = true
			}
		}
	case *ast.LetStmt:
		c.resolve(n.Value, sc, x)
	case *ast.AugmentStmt:
		c.name(n.Name, n.Pos, false, sc, x)
		c.resolve(n.Value, sc, x)
	case *ast.ForExpr:
		c.resolve(n.Source, sc, x)
		in := sc.child(n.Key, n.Var, n.Var+"_key")
		c.resolve(n.Filter, in, x)
		c.resolve(n.Body, in, x)
	case *ast.TemplateFor:
		c.resolve(n.Source, sc, x)
		in := sc.child(n.Key, n.Var)
		for _, p := range n.Body {
			c.resolve(p, in, x)
		}
	case *ast.VarDirective:
		c.resolve(n.Value, sc, x)
	case *ast.InterpPart:
		if r, ok := n.Value.(*ast.Ref); ok && n.AfterWord && !sc.has(r.Name) {
			// ann@example.com: text that stays as written, not a mistake.
			return
		}
		for _, ch := range children(n) {
			c.resolve(ch, sc, x)
		}
	default:
		for _, ch := range children(n) {
			c.resolve(ch, sc, x)
		}
	}
}

// ref checks a reference's name and, where they are known, its fields.
func (c *checker) ref(r *ast.Ref, sc *scope, x context) {
	call := len(r.Path) > 0 && r.Path[0].Kind == ast.AccessCall
	if !c.name(r.Name, r.Pos, call, sc, x) {
		return
	}
	field := func(i int) (string, bool) {
		if i >= len(r.Path) || r.Path[i].Kind != ast.AccessField {
			return "", false
		}
		if i+1 < len(r.Path) && r.Path[i+1].Kind == ast.AccessCall {
			return "", false // a method
		}
		return r.Path[i].Name, true
	}
	for i := range r.Path {
		if i == 0 && r.Name == "mx" || r.Path[i].Kind != ast.AccessField || r.Path[i].Name != "mx" {
			continue
		}
		if f, ok := field(i + 1); ok && !valueMxFields.has(f) {
			c.unknownField(r, i+1, "a value's .mx", f, valueMxFields.all(), x)
		}
		break
	}
	if sc.has(r.Name) {
		return
	}
	switch {
	case r.Name == "mx":
		f, ok := field(0)
		if !ok {
			return
		}
		if !mxFields.has(f) {
			c.unknownField(r, 0, "@mx", f, mxFields.all(), x)
			return
		}
		var known map[string]bool
		switch f {
		case "op", "operation":
			known = opFields.all()
		case "guard":
			known = guardFields.all()
		default:
			return
		}
		if g, ok := field(1); ok && !known[g] {
			c.unknownField(r, 1, "@mx."+f, g, known, x)
		}
	case c.objects[r.Name] != nil:
		f, ok := field(0)
		if !ok || f == "mx" {
			return
		}
		keys := map[string]bool{}
		for _, e := range c.objects[r.Name].Entries {
			keys[e.Key] = true
		}
		if !keys[f] {
			c.unknownField(r, 0, "@"+r.Name, f, keys, x)
		}
	}
}

// name checks that a name exists; it reports whether it does.
func (c *checker) name(name string, at ast.Pos, call bool, sc *scope, x context) bool {
	if sc.has(name) || c.globals[name] != nil || builtins.has(name) || c.guardNames[name] || c.embedder[name] || c.open {
		return true
	}
	what := "variable"
	if call {
		what = "exe"
	}
	msg := "unknown " + what + " @" + name
	if x == inGuard {
		msg += " in a guard (at run time the guard fails closed and denies every operation it covers)"
	} else if x == inPolicy {
		msg += " in a policy"
	}
	if s := c.suggest(name, sc); s != "" {
		msg += "; did you mean @" + s + "?"
	}
	c.report(Finding{Pos: at, Severity: x.severity(), Kind: KindUnknownName, Message: msg})
	return false
}

func (c *checker) unknownField(r *ast.Ref, i int, on, f string, known map[string]bool, x context) {
	msg := on + " has no field \"" + f + "\""
	if s := closest(f, keysOf(known)); s != "" {
		msg += "; did you mean ." + s + "?"
	}
	at := r.Path[i].Pos
	if at.Line == 0 {
		at = r.Pos
	}
	// In an agent policy's guard, @mx.tool.calls and kin are silently
	// empty: the rule never fires.
	c.report(Finding{Pos: at, Severity: x.severity(), Kind: KindUnknownField, Message: msg, FailsOpen: c.agent && x == inGuard && on == "@mx"})
}

func (c *checker) suggest(name string, sc *scope) string {
	var cands []string
	for n := range c.globals {
		cands = append(cands, n)
	}
	for s := sc; s != nil; s = s.parent {
		for n := range s.names {
			cands = append(cands, n)
		}
	}
	for n := range builtins.all() {
		cands = append(cands, n)
	}
	return closest(name, cands)
}

func keysOf(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// closest returns the candidate nearest to name: within two edits (a
// swap of neighbours is one, gti → git), ties going to the one sharing
// the first letter and then to sorted order; else one that name begins
// (new_str → new_string) or that begins name. "" when none is near.
func closest(name string, cands []string) string {
	sort.Strings(cands)
	best, bestD := "", 3
	for _, c := range cands {
		if c == name {
			continue
		}
		d := editdist.Distance(strings.ToLower(name), strings.ToLower(c))
		if d < bestD || d == bestD && best != "" && best[0] != name[0] && c[0] == name[0] {
			best, bestD = c, d
		}
	}
	if best != "" || len(name) < 3 {
		return best
	}
	for _, c := range cands {
		if strings.HasPrefix(c, name) || len(c) >= 3 && strings.HasPrefix(name, c) {
			return c
		}
	}
	return ""
}

// Suggest returns the candidate a misspelt name most likely meant (within
// two edits, or one it begins), or "": the did-you-mean of every check
// finding, for other commands to share.
func Suggest(name string, candidates []string) string {
	return closest(name, append([]string(nil), candidates...))
}
