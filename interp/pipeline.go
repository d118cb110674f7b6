package interp

import (
	"fmt"
	"strconv"

	"github.com/guardrun/guardrun/ast"
	"github.com/guardrun/guardrun/interp/guard"
	"github.com/guardrun/guardrun/interp/hooks"
	"github.com/guardrun/guardrun/interp/value"
	"github.com/guardrun/guardrun/taint"
)

// Retry budgets (SPEC §3.7).
const (
	maxContextRetries = 10
	maxStageRetries   = 20
)

// pipeStage is a stage with the inline effects written after it; effects
// are not stages and replay whenever their stage runs again.
type pipeStage struct {
	stage   *ast.Stage
	effects []*ast.Stage
}

// retryCtx is one retry context: stage requester asked to re-run the
// stage before it. try counts attempts; outputs are the re-run outputs.
type retryCtx struct {
	requester int
	try       int
	hint      *value.Variable
	outputs   []*value.Variable
}

// pipeState is the state of one pipeline run.
type pipeState struct {
	// invocationSource is set when stage 0 is an exe invocation or code:
	// only then do stages add their src:* taint, like chained direct calls
	// (SPEC §8 item 8). Stages of a variable, literal or template source add
	// their exe labels but no source marker.
	invocationSource bool
	outputs          []*value.Variable
	all              []*retryCtx
	active           []*retryCtx
	// guards is the guard history of the pipeline (`@p.guards`): one
	// entry per guard phase evaluated at a stage.
	guards []*value.Variable
}

// recorder returns the function guard hooks call to append a stage's
// guard evaluation to `@p.guards` (SPEC §5.13).
func (s *pipeState) recorder(stage int) func(phase string, op *hooks.OperationContext, saw taint.Descriptor, d guard.Decision) {
	return func(phase string, opc *hooks.OperationContext, saw taint.Descriptor, d guard.Decision) {
		o := value.NewRecord()
		o.SetData("stage", float64(stage))
		op := value.NewObject()
		if opc != nil {
			op.Set("type", opc.Type)
			op.Set("subtype", opc.Subtype)
			op.Set("name", opc.Name)
		}
		o.SetData("operation", op)
		o.SetData("decision", d.Action.String())
		o.SetData("timing", phase)
		trace, hints, reasons := traceObjects(d.Results, saw)
		o.Set("trace", trace)
		o.Set("hints", hints)
		o.Set("reasons", reasons)
		s.guards = append(s.guards, o.Variable())
	}
}

// pipeFrame is what a stage sees of its pipeline (`@p`, `@mx.try`…).
type pipeFrame struct {
	st    *pipeState
	stage int
	try   int
	input *value.Variable
	hint  *value.Variable
}

func (s *pipeState) ctxFor(stage int) *retryCtx {
	for i := len(s.active) - 1; i >= 0; i-- {
		c := s.active[i]
		if c.requester == stage || c.requester == stage+1 {
			return c
		}
	}
	return nil
}

func (s *pipeState) tryFor(stage int) int {
	if c := s.ctxFor(stage); c != nil {
		return c.try
	}
	return 1
}

// hintFor gives the retry hint to the stage being re-run only.
func (s *pipeState) hintFor(stage int) *value.Variable {
	for i := len(s.active) - 1; i >= 0; i-- {
		if c := s.active[i]; c.requester == stage+1 {
			return c.hint
		}
	}
	return nil
}

// output is `@p[k]`: the source for 0, stage k's output, or counting
// back from the previous stage for negative k.
func (f *pipeFrame) output(k int) *value.Variable {
	outs := f.st.outputs
	if k < 0 {
		k += f.stage
		if k < 1 {
			return undefined()
		}
	}
	if k >= f.stage && k != 0 || k >= len(outs) || outs[k] == nil {
		return undefined()
	}
	return outs[k]
}

func (s *pipeState) top() *retryCtx {
	if len(s.active) == 0 {
		return nil
	}
	return s.active[len(s.active)-1]
}

// contextObject is `@p` / `@pipeline`: `[0]` is the source output, `[i]`
// stage i's output, negative indexes count back over stage outputs. It is
// assembled from the outputs themselves, so each keeps its descriptor.
func (f *pipeFrame) contextObject() *value.Variable {
	o := value.NewRecord()
	outs := f.st.outputs
	if len(outs) > 0 && outs[0] != nil {
		o.Set("0", outs[0])
	}
	for j := 1; j < f.stage && j < len(outs); j++ {
		if outs[j] != nil {
			o.Set(strconv.Itoa(j), outs[j])
		}
	}
	for k := 1; k < f.stage && f.stage-k < len(outs); k++ {
		if v := outs[f.stage-k]; v != nil {
			o.Set(strconv.Itoa(-k), v)
		}
	}
	o.SetData("stage", float64(f.stage))
	o.SetData("try", float64(f.try))
	length := f.stage - 1
	if length < 0 {
		length = 0
	}
	o.SetData("length", float64(length))
	all := make([]*value.Variable, 0, len(f.st.all))
	for _, c := range f.st.all {
		all = append(all, value.ListOf(c.outputs))
	}
	if c := f.st.ctxFor(f.stage); c != nil {
		o.Set("tries", value.ListOf(c.outputs))
	} else {
		o.Set("tries", value.ListOf(all))
	}
	o.Set("guards", value.ListOf(f.st.guards))
	retries := value.NewRecord()
	retries.Set("all", value.ListOf(all))
	o.Set("retries", retries.Variable())
	return o.Variable()
}

// mxObject is the ambient `@mx`. It is assembled from the values it
// shows (the stage input, the retry hint, the errors of a parallel group,
// a guard's input and arguments), so that each field read carries the
// descriptor of what it holds and the whole object the union of them.
func (e *env) mxObject() *value.Variable {
	o := value.NewRecord()
	f := e.pipe
	if f == nil {
		o.SetData("try", float64(1))
		o.SetData("stage", float64(0))
		o.SetData("input", value.Undefined{})
		o.SetData("hint", nil)
		o.SetData("isPipeline", false)
	} else {
		o.SetData("try", float64(f.try))
		o.SetData("stage", float64(f.stage))
		o.Set("input", f.input)
		if f.input != nil {
			o.Set("lastOutput", f.input)
		}
		if f.hint != nil {
			o.Set("hint", f.hint)
		} else {
			o.SetData("hint", nil)
		}
		o.SetData("isPipeline", true)
	}
	var errs []*value.Variable
	if e.in != nil {
		errs = e.in.lastErrors
	}
	o.Set("errors", value.ListOf(errs))
	if e.in != nil {
		o.SetData("policy", e.in.policyObject())
		e.in.mx.AddTo(o)
		o.SetData("tools", e.in.toolsMx())
		if e.in.mxSession != nil {
			o.Set("session", e.in.mxSession())
		}
		if h := e.in.hooksMx(); h != nil {
			o.SetData("hooks", h)
		}
	}
	return o.Variable()
}

// mxMember is what a read of `@mx.key` gives, built alone: the member
// mxObject would assemble at key, with the same descriptor, without
// building the others (the operation object, the policy, the error list,
// the guard's fields…). ok is false when mxObject has nothing at key; the
// caller then reads the whole object. The precedence is mxObject's: the
// stacked namespaces (AddTo) are set last and win.
func (e *env) mxMember(key string) (*value.Variable, bool) {
	if e.in == nil {
		return nil, false
	}
	if v, ok := e.in.mx.Member(key); ok {
		return v, true
	}
	f := e.pipe
	switch key {
	case "for", "loop", "while":
		return e.iterMx(key)
	case "policy":
		return value.New(e.in.policyObject()), true
	case "tools":
		return value.New(e.in.toolsMx()), true
	case "session":
		if e.in.mxSession != nil {
			return e.in.mxSession(), true
		}
	case "hooks":
		if h := e.in.hooksMx(); h != nil {
			return value.New(h), true
		}
	case "errors":
		return value.ListOf(e.in.lastErrors), true
	case "try":
		if f == nil {
			return value.New(float64(1)), true
		}
		return value.New(float64(f.try)), true
	case "stage":
		if f == nil {
			return value.New(float64(0)), true
		}
		return value.New(float64(f.stage)), true
	case "isPipeline":
		return value.New(f != nil), true
	case "input":
		if f == nil || f.input == nil {
			return value.New(value.Undefined{}), true
		}
		return f.input, true
	case "lastOutput":
		if f != nil && f.input != nil {
			return f.input, true
		}
	case "hint":
		if f != nil && f.hint != nil {
			return f.hint, true
		}
		return value.New(nil), true
	}
	return nil, false
}

// isFunctionSource reports whether a pipeline source is re-evaluated on
// retry (an invocation with parentheses, or code) rather than replayed.
// A bare reference to an exe (`@f | @check`) is invoked once and then
// replayed, as mlld does: its pipes are a variable reference's, which
// are not retryable (pipeline/detector.ts).
func isFunctionSource(src ast.Expr) bool {
	switch s := src.(type) {
	case *ast.CodeExpr:
		return true
	case *ast.Ref:
		if n := len(s.Path); n > 0 {
			return s.Path[n-1].Kind == ast.AccessCall
		}
	}
	return false
}

// evalSource evaluates a pipeline source. A bare reference to an exe is
// invoked; code gets stdin from `with { stdin: … }`.
func (in *interp) evalSource(e *env, src ast.Expr, stdin *value.Variable) (*value.Variable, error) {
	switch s := src.(type) {
	case *ast.CodeExpr:
		return in.runCode(e, s, stdin)
	case *ast.Ref:
		if len(s.Path) == 0 {
			return in.evalInvocation(e, s)
		}
	}
	return in.evalExpr(e, src)
}

func (in *interp) withStdin(e *env, w *ast.WithClause) (*value.Variable, error) {
	if w == nil || w.Options == nil {
		return nil, nil
	}
	for _, en := range w.Options.Entries {
		if en.Key == "stdin" {
			return in.evalExpr(e, en.Value)
		}
	}
	return nil, nil
}

// evalPipeline runs `source | stage | …` (or `with { pipeline }`),
// including retries, parallel groups and inline effects.
func (in *interp) evalPipeline(e *env, pe *ast.PipelineExpr) (*value.Variable, error) {
	return in.evalPipelineFrom(e, pe, nil)
}

// evalPipelineFrom runs a pipeline; a non-nil preset is used as the
// source's value instead of evaluating it (a shown variable a guard
// replaced, SPEC §10 P12).
func (in *interp) evalPipelineFrom(e *env, pe *ast.PipelineExpr, preset *value.Variable) (*value.Variable, error) {
	e, err := in.withOverride(e, pe.With)
	if err != nil {
		return nil, atPos(err, KindGuard, pe.Pos)
	}
	stdin, err := in.withStdin(e, pe.With)
	if err != nil {
		return nil, err
	}
	all := append([]*ast.Stage(nil), pe.Stages...)
	if pe.With != nil && !pe.FromWith {
		all = append(all, pe.With.Pipeline...)
	}
	if len(all) == 0 {
		if preset != nil {
			return preset, nil
		}
		return in.evalSource(e, pe.Source, stdin)
	}
	var srcEffects []*ast.Stage
	var stages []pipeStage
	for _, s := range all {
		if s.Kind == ast.StageEffect {
			if len(stages) == 0 {
				srcEffects = append(srcEffects, s)
			} else {
				stages[len(stages)-1].effects = append(stages[len(stages)-1].effects, s)
			}
			continue
		}
		stages = append(stages, pipeStage{stage: s})
	}
	if err := checkStages(e, all); err != nil {
		return nil, err
	}
	n := len(stages)
	isFunc := isFunctionSource(pe.Source)
	st := &pipeState{outputs: make([]*value.Variable, n+1), invocationSource: isFunc}

	evalSrc := func(try int, hint *value.Variable) (*value.Variable, error) {
		if preset != nil {
			return preset, nil
		}
		fr := &pipeFrame{st: st, stage: 0, try: try, input: undefined(), hint: hint}
		v, err := in.evalSource(e.withPipe(fr), pe.Source, stdin)
		if err != nil {
			return nil, err
		}
		return v, nil
	}
	out0, err := evalSrc(1, nil)
	if err != nil {
		return nil, err
	}
	st.outputs[0] = out0
	if err := in.runEffects(e, srcEffects, &pipeFrame{st: st, stage: 0, try: 1}, out0); err != nil {
		return nil, err
	}
	staticReruns := 0
	for i := 1; i <= n; {
		if err := in.checkCtx(pe.Pos); err != nil {
			return nil, err
		}
		fr := &pipeFrame{st: st, stage: i, try: st.tryFor(i), input: st.outputs[i-1], hint: st.hintFor(i)}
		ps := stages[i-1]
		res, err := in.runStage(e, ps.stage, fr)
		if err != nil {
			// A before-guard asking to retry a stage retries it like a
			// `retry` the stage returned (SPEC §5.10).
			rs := asRetrySignal(err)
			if rs == nil || rs.Err.Timing != guard.Before {
				return nil, err
			}
			res = value.New(retrySignal{hint: &value.Variable{Data: rs.Hint(), Security: rs.From}})
		}
		if hint, retry := retryOf(res); retry {
			c := st.top()
			if c == nil || c.requester != i {
				c = &retryCtx{requester: i, try: 1}
				st.active = append(st.active, c)
				st.all = append(st.all, c)
			}
			target := i - 1
			if target == 0 && !isFunc {
				staticReruns++
				if staticReruns >= maxStageRetries {
					return nil, newError(KindPipeline, ps.stage.Pos, "make the retry condition reachable, or make the source a function",
						"Pipeline aborted: Stage 0 exceeded global retry limit (%d attempts).", maxStageRetries)
				}
			} else if c.try >= maxContextRetries {
				return nil, newError(KindPipeline, ps.stage.Pos, "make the retry condition reachable within the retry budget",
					"Pipeline aborted: Stage %d exceeded retry limit for stage %d (%d attempts; max %d).", i, target, c.try, maxContextRetries)
			}
			c.try++
			c.hint = hint
			if target == 0 {
				v := out0
				if isFunc {
					v, err = evalSrc(c.try, hint)
					if err != nil {
						return nil, err
					}
				}
				st.outputs[0] = v
				c.outputs = append(c.outputs, v)
				if err := in.runEffects(e, srcEffects, &pipeFrame{st: st, stage: 0, try: c.try, hint: hint}, v); err != nil {
					return nil, err
				}
				continue
			}
			i = target
			continue
		}
		st.outputs[i] = res
		if c := st.top(); c != nil && c.requester == i+1 && c.try > 1 {
			c.outputs = append(c.outputs, res)
		}
		if c := st.top(); c != nil && c.requester == i {
			st.active = st.active[:len(st.active)-1]
		}
		if err := in.runEffects(e, ps.effects, &pipeFrame{st: st, stage: i, try: fr.try, hint: fr.hint}, res); err != nil {
			return nil, err
		}
		i++
	}
	final := *st.outputs[n]
	final.Security = st.outputs[0].Security.Merge(final.Security)
	return &final, nil
}

// checkStages reports a stage, or a branch of a parallel group, naming a
// function that is not defined, before any stage runs: mlld validates a
// pipeline's functions first (unified-processor.ts, validatePipeline), so
// an undefined branch of a parallel group is an error of the pipeline,
// not one of the group's collected errors.
func checkStages(e *env, stages []*ast.Stage) error {
	for _, s := range stages {
		var ref *ast.Ref
		switch s.Kind {
		case ast.StageParallel:
			if err := checkStages(e, s.Parallel); err != nil {
				return err
			}
		case ast.StageCall:
			ref = s.Call
		case ast.StageWhile:
			if s.While != nil {
				ref = s.While.Proc
			}
		}
		if ref != nil && !e.resolvable(ref.Name) {
			return newError(KindVariable, s.Pos, "define it with exe before the pipeline, or use a builtin transformer such as @upper or @json",
				"Pipeline function '@%s' is not defined", ref.Name)
		}
	}
	return nil
}

// retryOf reports whether a stage asked for a retry: a `retry` action, or
// a code stage returning the text "retry".
func retryOf(v *value.Variable) (*value.Variable, bool) {
	if v == nil {
		return nil, false
	}
	switch d := v.Data.(type) {
	case retrySignal:
		return d.hint, true
	case string:
		return nil, d == "retry"
	}
	return nil, false
}

// runEffects runs inline effects on the output of the stage they follow.
func (in *interp) runEffects(e *env, effects []*ast.Stage, fr *pipeFrame, cur *value.Variable) error {
	if len(effects) == 0 {
		return nil
	}
	fr.input = cur
	ee := e.withPipe(fr).child()
	ee.sc.vars["input"] = cur
	for _, s := range effects {
		if s.Effect == nil {
			continue
		}
		if err := in.runEffect(ee, s.Effect, cur, s.Pos); err != nil {
			return err
		}
	}
	return nil
}

// runStage runs one stage on the frame's input.
func (in *interp) runStage(e *env, s *ast.Stage, fr *pipeFrame) (*value.Variable, error) {
	in.mx.Pipe.Push(hooks.PipeFrame{Stage: fr.stage, Try: fr.try, Input: fr.input, Hint: fr.hint, Guards: &fr.st.guards})
	res, err := in.runStageKind(e, s, fr)
	in.mx.Pipe.Pop()
	if err != nil || res == nil || fr.st.invocationSource || s.Kind == ast.StageEffect {
		return res, err
	}
	out := *res
	out.Security = res.Security.WithoutNewSourceTaint(fr.input.Security)
	return &out, nil
}

// runStageKind dispatches on the stage kind.
func (in *interp) runStageKind(e *env, s *ast.Stage, fr *pipeFrame) (*value.Variable, error) {
	se := e.withPipe(fr)
	input := fr.input
	switch s.Kind {
	case ast.StageCall:
		return in.runCallStage(se, s, input)
	case ast.StageCode:
		return in.runCodeStage(se, s, input)
	case ast.StageParallel:
		return in.runParallel(e, s, fr)
	case ast.StageWhile:
		return in.runWhile(se, s, input)
	case ast.StageEffect:
		if s.Effect != nil {
			return input, in.runEffect(se, s.Effect, input, s.Pos)
		}
		return input, nil
	}
	return nil, newError(KindPipeline, s.Pos, "", "unsupported pipeline stage")
}

// runCodeStage runs an inline code stage (`| cmd { tr a-z A-Z }`) as a
// pipeline-stage operation whose input is the stage input: the code reads
// it as `input` and on stdin, so the hooks, the policy and the guards see
// it like the input of an exe stage.
func (in *interp) runCodeStage(e *env, s *ast.Stage, input *value.Variable) (*value.Variable, error) {
	command := commandText(s.Code)
	op := &hooks.OperationContext{Type: "pipeline-stage", Subtype: s.Code.Lang, Command: command,
		Location: location(s.Pos)}
	codeOpLabels(op, s.Code.Lang, commandLine(s.Code))
	var gc *guardCall
	if fr := e.pipe; fr != nil {
		gc = &guardCall{opts: guard.Options{Attempt: fr.try, Pipeline: true, Override: e.override},
			beforeOnly: true, record: fr.st.recorder(fr.stage)}
	}
	return in.hookedWith(e, s, op, []*value.Variable{input}, gc, func([]*value.Variable) (*value.Variable, error) {
		// Guard replacements of a stage input are ignored (SPEC §10 P12),
		// as for exe stages.
		ce := e.child()
		ce.sc.vars["input"] = input
		ce.params = append(append([]codeParam(nil), e.params...), codeParam{name: "input", val: input})
		return in.runCode(ce, s.Code, input)
	})
}

func (in *interp) runCallStage(e *env, s *ast.Stage, input *value.Variable) (*value.Variable, error) {
	if s.Call == nil {
		return input, nil
	}
	ref := *s.Call
	var callArgs []ast.Expr
	if n := len(ref.Path); n > 0 && ref.Path[n-1].Kind == ast.AccessCall {
		callArgs = ref.Path[n-1].Args
		ref.Path = ref.Path[:n-1]
	}
	// The stage's own scope binds @input so that arguments such as
	// `@ok(@input)` see the stage input.
	ae := e.child()
	ae.sc.vars["input"] = input
	callee, err := in.evalRef(ae, &ref)
	if err != nil {
		return nil, atPos(err, KindPipeline, s.Pos)
	}
	args, err := in.evalArgs(ae, callArgs, ref.Name)
	if err != nil {
		return nil, atPos(err, KindPipeline, s.Pos)
	}
	switch f := callee.Data.(type) {
	case *exe:
		o := callOpts{pos: s.Pos, stageInput: input, stage: true}
		if fr := e.pipe; fr != nil {
			o.guards = &guardCall{opts: guard.Options{Attempt: fr.try, Pipeline: true, Override: e.override},
				beforeOnly: true, record: fr.st.recorder(fr.stage)}
		}
		return in.callExe(e, f, append([]*value.Variable{input}, args...), o)
	case *goFunc:
		return in.callGoFunc(e, f, append([]*value.Variable{input}, args...), s.Pos)
	case builtin:
		extra := make([]any, len(args))
		for i, a := range args {
			extra[i] = a.Data
		}
		return in.transform(f.name, transformInput(input), extra, s.Pos, append([]*value.Variable{input}, args...)...)
	}
	return nil, newError(KindPipeline, s.Pos, "pipeline stages must be exes, Go functions or builtin transformers",
		"@%s is not executable (type: %s)", ref.Name, typeName(callee.Data))
}

// runParallel runs a parallel group on the same input. The result is the
// array of results (as data and compact JSON text); a failing branch
// contributes an error object and is listed in @mx.errors.
func (in *interp) runParallel(e *env, s *ast.Stage, fr *pipeFrame) (*value.Variable, error) {
	results := make([]any, 0, len(s.Parallel))
	errs := []*value.Variable{}
	res := derived(nil, fr.input)
	for i, sub := range s.Parallel {
		v, err := in.runStage(e, sub, fr)
		if err != nil {
			if ie, ok := err.(*Error); ok && ie.Kind == KindInterrupt {
				return nil, err
			}
			// The branch failed on the input: its message may quote it,
			// so the message carries the input's descriptor too.
			msg := derived(errorMessage(err), fr.input)
			eo := value.NewRecord()
			eo.SetData("index", float64(i))
			eo.SetData("key", float64(i))
			eo.Set("message", msg)
			eo.Set("error", msg)
			eo.Set("value", fr.input)
			ev := eo.Variable()
			results = append(results, ev.Data)
			errs = append(errs, ev)
			continue
		}
		res.Security = res.Security.Merge(v.Security)
		results = append(results, parallelItem(v))
	}
	in.lastErrors = errs
	text := value.ToJSON(results, false)
	res.Data = results
	res.Text = &text
	res.Source = sourceParallel
	return res, nil
}

func errorMessage(err error) string {
	if ie, ok := err.(*Error); ok {
		return ie.Message
	}
	return fmt.Sprint(err)
}

// parallelItem is a parallel branch's result as the group's array holds
// it: as in mlld, a branch's output is text, read back as data only when
// it is a JSON object or array (a number 6 becomes "6").
func parallelItem(v *value.Variable) any {
	switch d := v.Data.(type) {
	case float64, bool:
		return rawText(v)
	case nil:
		return d
	}
	return v.Data
}
