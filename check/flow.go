package check

import (
	"sort"
	"strings"

	"github.com/guardrun/guardrun/ast"
)

// dataLabels are labels that mark what a value is (rather than what an
// exe does); an exe carrying one labels its results, an exe carrying any
// other label is a sink.
var dataLabels = &lazySet{names: []string{"secret", "pii", "sensitive", "untrusted", "internal", "influenced", "private", "trusted", "public", "known"}}

// fact is one label a value may carry, with where it came from.
type fact struct {
	label  string
	source string // "@apiKey", "@readKey() result"
	line   int
	via    []string
}

// facts is a value's possible labels keyed by label and source.
type facts map[string]*fact

func (fs facts) add(f *fact) bool {
	k := f.label + "\x00" + f.source
	if _, ok := fs[k]; ok {
		return false
	}
	fs[k] = f
	return true
}

func union(xs ...facts) facts {
	out := facts{}
	for _, x := range xs {
		for _, f := range x {
			out.add(f)
		}
	}
	return out
}

// through records that the value passed through step (a variable, a call
// result, a file).
func (fs facts) through(step string) facts {
	out := facts{}
	for _, f := range fs {
		if len(f.via) > 0 && f.via[len(f.via)-1] == step || f.source == step {
			out.add(f)
			continue
		}
		g := *f
		g.via = append(append([]string{}, f.via...), step)
		out.add(&g)
	}
	return out
}

// throughCall records that the value is a call's result; a value that
// entered the call through a parameter already says so.
func (fs facts) throughCall(name string) facts {
	out := facts{}
	for k, f := range fs {
		if n := len(f.via); n > 0 && strings.HasPrefix(f.via[n-1], "@"+name+"(") {
			out[k] = f
			continue
		}
		for k2, g := range (facts{k: f}).through("@" + name + "()") {
			out[k2] = g
		}
	}
	return out
}

// env is a local scope of the analysis (exe parameters, lets, for
// variables); the top level uses flow.vars.
type env struct {
	vars   map[string]facts
	parent *env
}

func (e *env) lookup(name string) (facts, bool) {
	for ; e != nil; e = e.parent {
		if v, ok := e.vars[name]; ok {
			return v, true
		}
	}
	return nil, false
}

func (e *env) all() facts {
	out := facts{}
	for ; e != nil; e = e.parent {
		for _, v := range e.vars {
			out = union(out, v)
		}
	}
	return out
}

// sink is an operation a labelled value may reach.
type sink struct {
	desc   string // "@post (net:w)", "command `curl`", "output to \"f.txt\""
	exe    string
	labels []string
	keys   map[string]bool // operation keys for op: filters
	word   string          // command name
}

type flow struct {
	c     *checker
	vars  map[string]facts
	files map[string]facts
	depth int
	// site is the top-level position a sink inside an exe is reported at.
	site  ast.Pos
	inner []string
	// arrived, when set, sees every value reaching an operation (sinks,
	// every exe call, show and log), covered or not: lineage uses it.
	arrived func(at ast.Pos, v facts, desc string)
	// ambient is every value that has reached an operation: what the
	// context objects (@mx, @p, a guard's @input/@output) may expose
	// wherever they are read (their args, inputs, errors, retry hints).
	ambient facts
}

// ambientNames are the context variables whose fields hold the inputs of
// the operation being decided (or of earlier stages and failed ones).
var ambientNames = &lazySet{names: []string{"mx", "p", "pipeline", "input", "output", "ctx"}}

// flow runs the label-flow analysis to a fixpoint (values only grow, so
// a second pass picks up files written after they are read).
func (c *checker) flow() {
	c.runFlow(nil)
}

func (c *checker) runFlow(arrived func(ast.Pos, facts, string)) {
	fl := &flow{c: c, vars: map[string]facts{}, files: map[string]facts{}, arrived: arrived}
	for pass := 0; pass < 3; pass++ {
		for _, n := range c.doc.Body {
			fl.site = ast.Pos{}
			fl.exec(n, nil)
		}
	}
}

func (fl *flow) lookup(name string, en *env) facts {
	if v, ok := en.lookup(name); ok {
		return v
	}
	if v, ok := fl.vars[name]; ok || !ambientNames.has(name) {
		return v
	}
	return fl.ambient
}

func (fl *flow) set(name string, v facts, en *env) {
	if en != nil {
		en.vars[name] = v
		return
	}
	fl.vars[name] = union(fl.vars[name], v)
}

func (fl *flow) exec(n ast.Node, en *env) facts {
	switch d := n.(type) {
	case *ast.VarDirective:
		v := fl.eval(d.Value, en).through("@" + d.Name)
		fl.labelled(v, d.Labels, "@"+d.Name, d.Pos)
		fl.set(d.Name, v, en)
	case *ast.LetStmt:
		fl.set(d.Name, fl.eval(d.Value, en).through("@"+d.Name), en)
	case *ast.AugmentStmt:
		fl.set(d.Name, union(fl.lookup(d.Name, en), fl.eval(d.Value, en)), en)
	case *ast.ReturnStmt:
		v := fl.eval(d.Value, en)
		fl.labelled(v, d.Labels, "labelled value", d.Pos)
		return v
	case *ast.OutputDirective:
		fl.write(fl.eval(d.Value, en), d.Target, en, d.Pos)
	case *ast.AppendDirective:
		fl.write(fl.eval(d.Value, en), d.Target, en, d.Pos)
	case *ast.IfDirective:
		fl.eval(d.Cond, en)
		v := fl.eval(d.Then, en)
		if d.Else != nil {
			v = union(v, fl.exec(d.Else, en))
		}
		return v
	case *ast.BlockExpr:
		return fl.eval(d, en)
	case *ast.GuardDirective:
		// A guard's condition may hand what it decides on (@input, @mx.args,
		// @output) to the exes it calls.
		if d.Body != nil {
			fl.eval(d.Body, &env{vars: map[string]facts{}})
		}
	case *ast.ExeDirective, *ast.PolicyDirective, *ast.ImportDirective, *ast.ExportDirective, *ast.Prose:
	case *ast.ShowDirective:
		fl.arrive(d.Pos, fl.eval(d.Value, en), "show")
	case *ast.LogDirective:
		fl.arrive(d.Pos, fl.eval(d.Value, en), "log")
	case *ast.RunDirective:
		return fl.eval(d.Value, en)
	case *ast.WhenDirective:
		return fl.eval(d.When, en)
	case *ast.ForDirective:
		return fl.eval(d.For, en)
	case *ast.ExprStmt:
		return fl.eval(d.Value, en)
	case ast.Expr:
		return fl.eval(d, en)
	}
	return nil
}

// labelled adds a fact for each label a declaration adds.
func (fl *flow) labelled(v facts, labels []string, source string, at ast.Pos) {
	for _, l := range labels {
		if strings.HasPrefix(l, "!") || l == "clear!" {
			continue
		}
		v.add(&fact{label: strings.TrimSuffix(l, "!"), source: source, line: at.Line})
	}
}

// write is an output or append: a sink when it goes to a file, and the
// file then carries the value's labels (files keep labels in guardrun).
func (fl *flow) write(v facts, t ast.OutputTarget, en *env, at ast.Pos) {
	if t.Path == nil {
		return
	}
	path := fl.eval(t.Path, en)
	name := "a computed path"
	if s, ok := t.Path.(*ast.StringLit); ok {
		if p, ok := s.PlainText(); ok {
			name = "\"" + p + "\""
			fl.files[p] = union(fl.files[p], v.through("file "+name))
		}
	}
	fl.sink(union(v, path), sink{desc: "output to " + name, keys: set("output", "append", "outputfile", "appendfile")}, at)
}

func (fl *flow) eval(n ast.Node, en *env) facts {
	switch e := n.(type) {
	case nil:
		return nil
	case *ast.Ref:
		return fl.ref(e, en)
	case *ast.StringLit:
		out := facts{}
		for _, p := range e.Parts {
			out = union(out, fl.eval(p, en))
		}
		return out
	case *ast.InterpPart:
		return union(fl.eval(e.Value, en), fl.eval(e.Fallback, en))
	case *ast.TemplateFor:
		src := fl.eval(e.Source, en)
		in := &env{vars: map[string]facts{e.Var: src}, parent: en}
		if e.Key != "" {
			in.vars[e.Key] = src
		}
		out := facts{}
		for _, p := range e.Body {
			out = union(out, fl.eval(p, in))
		}
		return out
	case *ast.CodeExpr:
		return fl.code(e, nil, en)
	case *ast.PipelineExpr:
		return fl.pipeline(e, en)
	case *ast.WhenExpr:
		fl.eval(e.Subject, en)
		in := &env{vars: map[string]facts{}, parent: en}
		out := facts{}
		for _, arm := range e.Arms {
			fl.eval(arm.Cond, in)
			out = union(out, fl.exec(arm.Action, in))
		}
		return out
	case *ast.ForExpr:
		src := fl.eval(e.Source, en)
		in := &env{vars: map[string]facts{e.Var: src}, parent: en}
		if e.Key != "" {
			in.vars[e.Key] = src
		}
		fl.eval(e.Filter, in)
		return fl.exec(e.Body, in)
	case *ast.ForeachExpr:
		return fl.ref(e.Call, en)
	case *ast.BlockExpr:
		in := &env{vars: map[string]facts{}, parent: en}
		out := facts{}
		for _, st := range e.Stmts {
			v := fl.exec(st, in)
			if _, ok := st.(*ast.ReturnStmt); ok {
				out = union(out, v)
			}
		}
		return out
	case *ast.LabelExpr:
		v := union(fl.eval(e.Value, en))
		fl.labelled(v, e.Labels, "labelled value", e.Pos)
		return v
	case *ast.FileLoad:
		out := fl.eval(e.Path, en)
		if e.Path != nil {
			if p, ok := e.Path.PlainText(); ok {
				out = union(out, fl.files[p])
			}
		}
		return out
	case *ast.GuardDirective, *ast.PolicyDirective:
		return nil
	case ast.Directive:
		return fl.exec(e, en)
	}
	out := facts{}
	for _, ch := range children(n) {
		out = union(out, fl.eval(ch, en))
	}
	return out
}

func (fl *flow) ref(r *ast.Ref, en *env) facts {
	_, local := en.lookup(r.Name)
	exe := fl.c.exes[r.Name]
	isCall := exe != nil && !local && len(r.Path) > 0 && r.Path[0].Kind == ast.AccessCall
	var extra []facts
	for i, a := range r.Path {
		if i == 0 && isCall {
			continue // the call's arguments reach the result through the call
		}
		extra = append(extra, fl.eval(a.Index, en))
		for _, arg := range a.Args {
			extra = append(extra, fl.eval(arg, en))
		}
	}
	if isCall {
		args := make([]facts, len(r.Path[0].Args))
		for i, a := range r.Path[0].Args {
			args[i] = fl.eval(a, en)
		}
		return union(append(extra, fl.call(exe, args, r.Pos))...)
	}
	return union(append(extra, fl.lookup(r.Name, en))...)
}

// call analyses one call of exe: arguments bind to parameters, sinks in
// the body see them, and the result may carry any of them plus the
// exe's data labels.
func (fl *flow) call(exe *ast.ExeDirective, args []facts, at ast.Pos) facts {
	return fl.callAs(exe, args, at, "exe")
}

// callAs is call with the operation type the call has: "exe", or
// "pipeline-stage" for a stage, which `op:exe` guards do not see.
func (fl *flow) callAs(exe *ast.ExeDirective, args []facts, at ast.Pos, opType string) facts {
	if fl.site.Line == 0 {
		fl.site = at
		defer func() { fl.site = ast.Pos{} }()
	}
	all := union(args...)
	if fl.depth > 6 {
		return all
	}
	fl.depth++
	defer func() { fl.depth-- }()
	fl.arrive(at, all, "@"+exe.Name)
	var risk []string
	for _, l := range exe.Labels {
		if !fl.isData(l) {
			risk = append(risk, l)
		}
	}
	if len(risk) > 0 {
		keys := set(opType, strings.ToLower(exe.Name))
		for _, l := range risk {
			keys[strings.ToLower(l)] = true
		}
		fl.sink(all, sink{desc: "@" + exe.Name + " (" + strings.Join(risk, ", ") + ")", exe: exe.Name, labels: risk, keys: keys}, at)
	}
	in := &env{vars: map[string]facts{}}
	for i, p := range exe.Params {
		if i < len(args) {
			name := strings.TrimPrefix(p.Name, "@")
			in.vars[name] = args[i].through("@" + exe.Name + "(" + name + ")")
		}
	}
	fl.inner = append(fl.inner, "@"+exe.Name+"()")
	out := fl.eval(exe.Body, in)
	fl.inner = fl.inner[:len(fl.inner)-1]
	// A call's result carries its arguments' labels whatever the body
	// does with them, and the exe's labels (SPEC §4.2).
	out = union(out, all).throughCall(exe.Name)
	for _, l := range exe.Labels {
		out.add(&fact{label: l, source: "@" + exe.Name + "() result", line: exe.Pos.Line})
	}
	return out
}

func (fl *flow) isData(l string) bool {
	return dataLabels.has(l) || fl.c.labels[l] && !fl.c.exeLabels[l]
}

// code is a code block: a command (cmd, sh) is a sink; its result, like
// any code block's, may carry every value in scope (the analysis does not
// read the code).
func (fl *flow) code(c *ast.CodeExpr, input facts, en *env) facts {
	var v facts
	if c.Command != nil {
		v = union(input, fl.eval(c.Command, en))
	} else {
		// The code reads its scope, the variables its header names
		// (`js (@a) {…}`) and, through `mx`, the context.
		v = union(input, en.all(), fl.ambient)
		for _, a := range c.Args {
			v = union(v, fl.lookup(strings.TrimPrefix(a, "@"), en))
		}
	}
	switch c.Lang {
	case "cmd", "sh", "bash":
		word := ""
		if w := strings.Fields(c.Code); len(w) > 0 {
			word = strings.ToLower(w[0])
		}
		desc := "a command"
		if word != "" {
			desc = "command `" + word + "`"
		}
		fl.sink(v, sink{desc: desc, word: word, keys: set("run", "cmd", "sh", "bash", "exe", "runcommand", "exec")}, c.Pos)
	}
	return v
}

func (fl *flow) pipeline(pl *ast.PipelineExpr, en *env) facts {
	var cur facts
	if pl.With != nil && pl.With.Options != nil {
		// `with { stdin: @v }` feeds the source's command.
		opts := fl.eval(pl.With.Options, en)
		if c, ok := pl.Source.(*ast.CodeExpr); ok {
			cur = fl.code(c, opts, en)
		} else {
			cur = union(fl.eval(pl.Source, en), opts)
		}
	} else {
		cur = fl.eval(pl.Source, en)
	}
	for _, st := range pl.Stages {
		cur = fl.stage(st, cur, en)
	}
	return cur
}

func (fl *flow) stage(st *ast.Stage, cur facts, en *env) facts {
	switch st.Kind {
	case ast.StageCall:
		r := st.Call
		if exe := fl.c.exes[r.Name]; exe != nil {
			args := []facts{cur}
			if len(r.Path) > 0 && r.Path[0].Kind == ast.AccessCall {
				for _, a := range r.Path[0].Args {
					args = append(args, fl.eval(a, en))
				}
			}
			return fl.callAs(exe, args, st.Pos, "pipeline-stage")
		}
		return union(cur, fl.ref(r, en))
	case ast.StageCode:
		return fl.code(st.Code, cur, en)
	case ast.StageEffect:
		v := cur
		if st.Effect.Value != nil {
			v = fl.eval(st.Effect.Value, en)
		}
		if st.Effect.Target != nil && (st.Effect.Kind == "output" || st.Effect.Kind == "append") {
			fl.write(v, *st.Effect.Target, en, st.Pos)
		}
		return cur
	case ast.StageParallel:
		out := facts{}
		for _, sub := range st.Parallel {
			out = union(out, fl.stage(sub, cur, en))
		}
		return out
	}
	return cur
}

// sink reports each fact that reaches s with no guard or policy rule
// covering it.
func (fl *flow) sink(v facts, s sink, at ast.Pos) {
	fl.arrive(at, v, s.desc)
	where := at
	if fl.site.Line != 0 {
		where = fl.site
	}
	keys := make([]string, 0, len(v))
	for k := range v {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		f := v[k]
		if !fl.c.flowLabel(f.label) || fl.c.covered(f.label, s) {
			continue
		}
		path := append(append([]string{f.source}, f.via...), s.desc)
		msg := f.label + " from " + f.source + " (line " + itoa(f.line) + ") reaches " + s.desc
		if where != at {
			msg += " inside " + strings.Join(fl.inner, " → ")
		}
		msg += " at line " + itoa(where.Line)
		if len(f.via) > 0 {
			msg += " through " + strings.Join(f.via, " → ")
		}
		msg += "; no guard or policy rule covers this path"
		fl.c.report(Finding{Pos: where, Severity: Warning, Kind: KindLabelFlow, Message: msg, Path: path})
	}
}

// arrive records, for lineage, that v reaches an operation at at (and at
// the top-level call site it is inside of).
func (fl *flow) arrive(at ast.Pos, v facts, desc string) {
	if fl.ambient == nil {
		fl.ambient = facts{}
	}
	for _, f := range v {
		fl.ambient.add(f)
	}
	if fl.arrived == nil {
		return
	}
	fl.arrived(at, v, desc)
	if fl.site.Line != 0 && fl.site != at {
		fl.arrived(fl.site, v, desc)
	}
}

// flowLabel reports whether the analysis follows label l: data labels
// (declared on values), not exe risk labels.
func (c *checker) flowLabel(l string) bool {
	return !builtinLabel(l) && (dataLabels.has(l) || c.labels[l])
}
