package interp

import (
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/guardrun/guardrun/ast"
	"github.com/guardrun/guardrun/interp/hooks"
	"github.com/guardrun/guardrun/interp/value"
	"github.com/guardrun/guardrun/taint"
)

// The lineage recorder answers, at a denial, how the triggering label
// reached the denied input as the run actually went: `secret from @token
// (line 2) → @summarize(t) (js) → @summary → @post`. It exists only when
// an Explain callback is set (in.rec nil otherwise), so runs without
// --explain neither allocate nor record anything for it.
//
// What it follows:
//   - every hooked operation (var, show, output, log, run, exe calls,
//     pipeline stages), through a reentrant pre-hook registered first and
//     a post-hook registered after the guards: a node per operation, whose
//     parents are the nodes of its inputs (by Variable identity);
//   - variable reads (env.lookup): an input that is not a recorded value
//     itself (a template, an object literal, a field of one, a for loop's
//     element, a `let`) is attributed to the recorded values the
//     statement read before it, keeping the most derived of them;
//   - an exe's parameters: reads of them inside its body lead to the
//     call, so the chain shows the hop `@send(req)`;
//   - introductions: labels a `var` declares, exe labels, labels a guard
//     added to a result, and labels a file load restores from the audit
//     ledger, linked to the `output` that wrote the file in this run.
//
// What it does not: values that cross code blocks' own state, host
// functions, or anything that is not read through a variable between two
// hooked operations (it then ends the chain at the last node it knows,
// or gives no chain, and the facade falls back to the static analysis).
type lineageRec struct {
	in     *interp
	nodes  map[*value.Variable]*lnode
	frames []*lframe
	ops    []lop
	writes map[string]*lnode
	count  int
	seq    int
}

// lineageMaxNodes bounds what one run records; beyond it values are not
// followed (chains end early) rather than memory growing with the run.
const lineageMaxNodes = 50000

// lineageMaxReads bounds the reads a frame keeps between statements, and
// lineageOpReads those an operation remembers (the most recent).
const (
	lineageMaxReads = 128
	lineageOpReads  = 16
)

// lineageMaxSteps bounds a chain; nodes only point to older ones, so a
// walk cannot cycle, but it is guarded anyway.
const lineageMaxSteps = 32

type lframe struct {
	reads []lread
	// call is the exe call whose body this frame reads in; params its
	// argument values, which reads inside the body attribute to the call.
	call   *lnode
	params []*value.Variable
	hook   bool
}

type lread struct {
	n     *lnode
	taint []string
}

type lop struct {
	call   *hooks.Call
	n      *lnode
	frames int
	// nested marks an operation a hook caused (a guard's helper): it
	// runs in its own frame but is no step of the guarded data's path.
	nested bool
}

type lkind uint8

const (
	lkVar lkind = iota
	lkExe
	lkOp
	lkWrite
	lkLoad
)

type lnode struct {
	kind   lkind
	name   string
	lang   string
	params []string
	pos    ast.Pos
	// labels are those the node itself gives its value (declared, exe
	// labels, ledger labels); out the taint of its result once known.
	labels []string
	ins    []lread
	reads  []lread
	out    []string
	op     *hooks.OperationContext
	// seq orders nodes by creation; val is an exe result's data, to
	// recognise it as the result of the call that returns it.
	seq int
	val any
}

func newLineageRec(in *interp) *lineageRec {
	return &lineageRec{in: in, nodes: map[*value.Variable]*lnode{}, frames: []*lframe{{}}, writes: map[string]*lnode{}}
}

// prune drops the operations that ended without reaching the post-hook
// (denied, failed, or an agent decision asked before the tool ran): only
// those still on the `@mx.op` stack, below the one starting now, are
// running.
func (r *lineageRec) prune() {
	st := &r.in.mx.Op
	for len(r.ops) > 0 {
		o := r.ops[len(r.ops)-1]
		for i := st.Len() - 2; i >= 0; i-- {
			if st.At(i) == o.call.Op {
				return
			}
		}
		r.frames = r.frames[:o.frames]
		r.ops = r.ops[:len(r.ops)-1]
	}
}

// register installs the recorder's hooks: pre before any other pre-hook
// (a denying guard stops the chain), post after the guards' (their
// transforms make the value the script keeps).
func (r *lineageRec) registerPre(m *hooks.Manager)  { m.RegisterPre("lineage", r.pre) }
func (r *lineageRec) registerPost(m *hooks.Manager) { m.RegisterPost("lineage", r.post) }

func (r *lineageRec) top() *lframe { return r.frames[len(r.frames)-1] }

// read notes a variable read by the statement being evaluated.
func (r *lineageRec) read(v *value.Variable) {
	f := r.top()
	if len(v.Security.Taint()) == 0 {
		return // a value without labels is on no label's path
	}
	if r.in.hooks.InHook() && !f.hook {
		return // a guard's reads are not the data's path
	}
	n := r.nodeOf(v)
	if n == nil {
		return
	}
	for i := len(f.reads) - 1; i >= 0 && i >= len(f.reads)-8; i-- {
		if f.reads[i].n == n {
			return
		}
	}
	f.note(lread{n: n, taint: v.Security.Taint()})
}

// note adds a labelled value to what the frame's statement read.
func (f *lframe) note(rd lread) {
	if len(rd.taint) == 0 {
		return
	}
	if len(f.reads) >= lineageMaxReads {
		f.reads = slices.Delete(f.reads, 0, lineageMaxReads/2)
	}
	f.reads = append(f.reads, rd)
}

// nodeOf is the node of a value: the exe call whose argument it is, when
// read inside that call's body, else the value's own node.
func (r *lineageRec) nodeOf(v *value.Variable) *lnode {
	if v == nil {
		return nil
	}
	if f := r.top(); f.call != nil && slices.Contains(f.params, v) {
		return f.call
	}
	return r.nodes[v]
}

func (r *lineageRec) add(v *value.Variable, n *lnode) {
	if v == nil || len(v.Security.Taint()) == 0 {
		return
	}
	if _, ok := r.nodes[v]; ok || r.count >= lineageMaxNodes {
		return
	}
	r.count++
	r.nodes[v] = n
}

// opNode describes c: its inputs' nodes and what the statement read.
func (r *lineageRec) opNode(c *hooks.Call) *lnode {
	r.seq++
	reads := r.top().reads
	if len(reads) > lineageOpReads {
		reads = reads[len(reads)-lineageOpReads:]
	}
	n := &lnode{kind: lkOp, op: c.Op, reads: slices.Clone(reads), seq: r.seq}
	if op := c.Op; op != nil {
		n.name, n.labels = op.Name, op.Labels
		n.pos = ast.Pos{File: op.Location.File, Line: op.Location.Line, Col: op.Location.Column}
		switch op.Type {
		case "var":
			n.kind = lkVar
		case "exe", "pipeline-stage":
			n.kind = lkExe
			n.params = append(n.params, op.Params...)
			for _, l := range op.OpLabels {
				switch l {
				case "op:js", "op:node", "op:sh", "op:py":
					n.lang = strings.TrimPrefix(l, "op:")
				case "op:cmd":
					n.lang = "cmd"
				}
			}
		case "output", "append":
			if op.Subtype != "outputStream" && op.Target != "" {
				n.kind, n.name = lkWrite, op.Target
			}
		}
	}
	for _, v := range c.Inputs {
		in := lread{n: r.nodeOf(v)}
		if v != nil {
			in.taint = v.Security.Taint()
		}
		n.ins = append(n.ins, in)
	}
	return n
}

func (r *lineageRec) pre(c *hooks.Call) (hooks.Decision, error) {
	r.prune()
	n := r.opNode(c)
	// This hook itself counts as running: more means a hook caused c.
	nested := r.in.hooks.Running() > 1
	r.ops = append(r.ops, lop{call: c, n: n, frames: len(r.frames), nested: nested})
	if n.kind == lkExe {
		r.frames = append(r.frames, &lframe{call: n, params: c.Inputs, hook: nested})
	}
	return hooks.Decision{Action: hooks.Continue}, nil
}

func (r *lineageRec) post(c *hooks.Call, res *value.Variable) (*value.Variable, error) {
	// Operations that failed never reached their post-hook: drop them.
	i := len(r.ops) - 1
	for i >= 0 && r.ops[i].call != c {
		i--
	}
	if i < 0 {
		return res, nil
	}
	o := r.ops[i]
	r.ops = r.ops[:i]
	n := o.n
	if n.kind == lkExe && res != nil {
		n.val = res.Data
		if len(r.frames) > o.frames {
			// An exe whose body returns another call's result (`exe
			// @outer(w) = @inner(@w)`): the value is that call's, and
			// the chain goes through it.
			if m := bodyResult(r.frames[o.frames], n, res.Data); m != nil {
				n = m
			}
		}
	}
	r.frames = r.frames[:o.frames]
	if res != nil {
		n.out = res.Security.Taint()
	}
	if o.nested && !r.top().hook {
		r.add(res, n)
		return res, nil
	}
	switch n.kind {
	case lkExe:
		r.add(res, n)
		f := r.top()
		f.note(lread{n: n, taint: n.out})
	case lkVar:
		r.add(res, n)
		r.top().reads = r.top().reads[:0]
	case lkWrite:
		r.writes[filepath.Clean(n.name)] = n
		r.top().reads = r.top().reads[:0]
	default:
		f := r.top()
		f.reads = f.reads[:0]
		if c.Op != nil && c.Op.Type == "run" && res != nil {
			r.add(res, n)
			f.note(lread{n: n, taint: n.out})
		}
	}
	return res, nil
}

// bodyResult is the node of the call, made in body during call n, whose
// result is data: what n returned.
func bodyResult(body *lframe, n *lnode, data any) *lnode {
	for i := len(body.reads) - 1; i >= 0; i-- {
		m := body.reads[i].n
		if m.kind == lkExe && m.seq > n.seq && sameData(m.val, data) {
			return m
		}
	}
	return nil
}

// sameData compares the data of two results without panicking on
// incomparable kinds: text by value, containers by identity.
func sameData(a, b any) bool {
	switch x := a.(type) {
	case string:
		y, ok := b.(string)
		return ok && x == y
	case *value.Object:
		y, ok := b.(*value.Object)
		return ok && x == y
	case []any:
		y, ok := b.([]any)
		return ok && len(x) == len(y) && (len(x) == 0 || &x[0] == &y[0])
	}
	return false
}

// load notes a file load: its value derives from the `output` that wrote
// the file in this run, if one did, and its ledger labels are its own.
func (r *lineageRec) load(v *value.Variable, name string, pos ast.Pos) {
	r.seq++
	n := &lnode{kind: lkLoad, name: name, pos: pos, labels: v.Security.Labels(), out: v.Security.Taint(), seq: r.seq}
	if w := r.writes[filepath.Clean(name)]; w != nil {
		n.ins = []lread{{n: w, taint: w.out}}
	}
	r.add(v, n)
	f := r.top()
	f.note(lread{n: n, taint: n.out})
}

// has reports whether the node's value carries l (its result's taint, or
// its inputs' before it ran).
func (n *lnode) has(l string) bool {
	if n.out != nil {
		return slices.Contains(n.out, l)
	}
	for _, in := range n.ins {
		if slices.Contains(in.taint, l) {
			return true
		}
	}
	return slices.Contains(n.labels, l)
}

// parent is the node l came to n from, nil when n introduced it.
func (n *lnode) parent(l string) *lnode {
	for _, in := range n.ins {
		if in.n != nil && slices.Contains(in.taint, l) {
			return in.n
		}
	}
	var cands []*lnode
	for _, rd := range n.reads {
		// An earlier call from the same place (a loop's previous
		// iteration) is no input of this one unless passed by identity.
		if rd.n != n && !n.sameCall(rd.n) && slices.Contains(rd.taint, l) {
			cands = append(cands, rd.n)
		}
	}
	// The statement read x and then y derived from x (`@f(@x)`): y is
	// the more precise source.
	for i := len(cands) - 1; i >= 0; i-- {
		c := cands[i]
		subsumed := false
		for _, o := range cands {
			if o != c && o.derives(c, l, 8) {
				subsumed = true
				break
			}
		}
		if !subsumed {
			return c
		}
	}
	return nil
}

func (n *lnode) sameCall(o *lnode) bool {
	return n.kind == lkExe && o.kind == lkExe && n.name == o.name && n.pos == o.pos
}

// derives reports whether a reaches back to b (for l) within depth steps.
func (a *lnode) derives(b *lnode, l string, depth int) bool {
	for cur := a; cur != nil && depth > 0; depth-- {
		p := cur.parent(l)
		if p == b {
			return true
		}
		cur = p
	}
	return false
}

// chains gives one line per label of labels that the recorded run can
// trace back from op's inputs (only, the guard's per-input denial, when
// not nil) to where it was introduced.
func (r *lineageRec) chains(op *hooks.OperationContext, inputs []*value.Variable, only *value.Variable, labels []string) []string {
	var n *lnode
	for i := len(r.ops) - 1; i >= 0; i-- {
		if r.ops[i].call.Op == op {
			n = r.ops[i].n
			break
		}
	}
	if n == nil {
		n = r.opNode(&hooks.Call{Op: op, Inputs: inputs})
	}
	if only != nil {
		// A per-input guard denied one input: follow that one.
		// Its node was resolved when the operation started (the body's
		// frame, where it is the call's own argument, is open now).
		in := lread{n: r.nodes[only], taint: only.Security.Taint()}
		for j, v := range inputs {
			if v == only && j < len(n.ins) {
				in.n = n.ins[j].n
			}
		}
		m := *n
		m.ins = []lread{in}
		n = &m
	}
	var out []string
	for _, l := range labels {
		if taint.IsFactual(l) || strings.HasPrefix(l, "op:") {
			continue
		}
		if s := chain(n, l); s != "" {
			out = append(out, s)
		}
	}
	return out
}

func chain(denied *lnode, l string) string {
	steps := []string{denied.hop(l, true)}
	cur := denied.parent(l)
	if cur == nil {
		return ""
	}
	seen := map[*lnode]bool{denied: true}
	for len(steps) < lineageMaxSteps && !seen[cur] {
		seen[cur] = true
		p := cur.parent(l)
		if p == nil {
			break
		}
		steps = append(steps, cur.hop(l, false))
		cur = p
	}
	steps = append(steps, l+" from "+cur.source(l, denied.pos.File))
	slices.Reverse(steps)
	return strings.Join(steps, " → ")
}

// hop is how a node shows in the middle of a chain (or at its end, the
// denied operation).
func (n *lnode) hop(l string, last bool) string {
	switch n.kind {
	case lkVar:
		return "@" + n.name
	case lkExe:
		s := "@" + n.name
		if !last {
			var ps []string
			for i, in := range n.ins {
				if i < len(n.params) && slices.Contains(in.taint, l) {
					ps = append(ps, n.params[i])
				}
			}
			s += "(" + strings.Join(ps, ", ") + ")"
		}
		if n.lang != "" && n.lang != "cmd" {
			s += " (" + n.lang + ")"
		}
		return s
	case lkWrite:
		return "file " + strconv.Quote(n.name) + " (written line " + strconv.Itoa(n.pos.Line) + ")"
	case lkLoad:
		return "<" + n.name + ">"
	}
	if n.op == nil {
		return "(operation)"
	}
	if n.op.Type == "run" {
		for _, ol := range n.op.OpLabels {
			if w, ok := strings.CutPrefix(ol, "op:cmd:"); ok && !strings.Contains(w, ":") {
				return "command `" + w + "`"
			}
		}
	}
	return opLabel(n.op)
}

// source is how the node that introduced l shows at the chain's start.
func (n *lnode) source(l, file string) string {
	at := "line " + strconv.Itoa(n.pos.Line)
	if n.pos.File != "" && n.pos.File != file {
		// Introduced in another module: say which.
		at = filepath.Base(n.pos.File) + ":" + strconv.Itoa(n.pos.Line)
	}
	line := " (" + at + ")"
	switch n.kind {
	case lkVar:
		return "@" + n.name + line
	case lkExe:
		if slices.Contains(n.labels, l) {
			return "@" + n.name + " (exe label, " + at + ")"
		}
		if n.lang != "" && n.lang != "cmd" {
			return "@" + n.name + " (" + n.lang + ", " + at + ")"
		}
		return "@" + n.name + line
	case lkLoad:
		return "file " + strconv.Quote(n.name) + line
	}
	return n.hop(l, true) + line
}
