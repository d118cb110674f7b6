package interp

import (
	"errors"
	"os"
	"path"
	"strings"
	"sync"

	"github.com/guardrun/guardrun/ast"
	"github.com/guardrun/guardrun/interp/code"
	"github.com/guardrun/guardrun/interp/guard"
	"github.com/guardrun/guardrun/interp/hooks"
	"github.com/guardrun/guardrun/interp/policy"
	"github.com/guardrun/guardrun/interp/value"
	"github.com/guardrun/guardrun/taint"
)

// codeEngine returns the run's engine, creating it on first use so that
// scripts without code pay nothing.
func (in *interp) codeEngine() *code.Engine {
	sh := in.sh
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if sh.engine == nil {
		sh.engine = code.NewEngine(code.Options{
			Timeout:     in.opts.CommandTimeout,
			OutputLimit: in.opts.OutputLimit,
			MemoryLimit: in.opts.MemoryLimit,
			Stderr:      sh.stderr,
			Dir:         in.files.base,
		})
	}
	return sh.engine
}

// stderrSink routes JS console.error and command stderr to the run's
// stderr stream: the run's output while a script runs or a Machine
// loads; nothing once the Machine decides (decisions write no output, and
// decisions of different sessions run at once).
type stderrSink struct {
	mu sync.Mutex
	o  *output
}

// detach makes later writes go nowhere.
func (w *stderrSink) detach() {
	w.mu.Lock()
	w.o = nil
	w.mu.Unlock()
}

func (w *stderrSink) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.o == nil {
		return len(p), nil
	}
	// Commands write from os/exec's copying goroutine, where the panic of
	// writeStderr would end the process: fail the write instead.
	if err := w.o.reserve(len(p)); err != nil {
		return 0, err
	}
	w.o.writeStderrTaken(string(p))
	return len(p), nil
}

// jsValue is what a code block sees for a value: parsed command output is
// passed as its original text, everything else as data.
func jsValue(v *value.Variable) any {
	if v == nil {
		return ""
	}
	if c, ok := loadedForCode(v); ok {
		return c
	}
	if v.Text != nil && isStructured(v.Data) && v.Source != sourceOutput {
		return *v.Text
	}
	if _, ok := v.Data.(value.Undefined); ok {
		// mlld binds a parameter without argument so that property reads on
		// it give undefined instead of throwing.
		return ""
	}
	return v.Data
}

// runCode runs a code block with the innermost exe's parameters bound.
// stdin, when non-nil, is fed to commands as text; it flows into the
// command like an interpolated value, so its descriptor is checked with
// the command and carried by the result.
func (in *interp) runCode(e *env, c *ast.CodeExpr, stdin *value.Variable) (*value.Variable, error) {
	if in.opts.DisableCode {
		return nil, newError(KindCommand, c.Pos, "this embedder runs scripts without code execution",
			"code execution is disabled: cannot run %s block", c.Lang)
	}
	lang := c.Lang
	if len(c.Args) > 0 {
		ae, err := in.codeArgsEnv(e, c)
		if err != nil {
			return nil, err
		}
		e = ae
	}
	var res *value.Variable
	var err error
	switch lang {
	case "js", "javascript", "node":
		// The embedded engine has no process or file system, so a
		// working directory changes nothing; it is still checked.
		if _, err := in.workingDir(e, c); err != nil {
			return nil, err
		}
		res, err = in.runJSChannel(e, c)
		if err == nil {
			if text, ok := res.Data.(string); ok {
				// mlld trims what a JavaScript block gives
				// (JavaScriptExecutor: output.trim()).
				res.Data = strings.TrimSpace(text)
			}
		}
	case "cmd", "", "run":
		lang = "cmd"
		res, err = in.runCommand(e, c, stdin)
	case "sh", "bash":
		res, err = in.runShellBlock(e, c, stdinText(stdin))
	default:
		return nil, newError(KindCode, c.Pos, "use js, node, cmd, sh or bash", "unsupported code language: %s", c.Lang)
	}
	if err != nil {
		return nil, codeError(err, c.Pos)
	}
	if stdin != nil {
		res.Security = res.Security.Merge(stdin.Security)
	}
	return codeResult(e, res, lang), nil
}

// codeResult gives the result of a code block the union of what went in
// (the bound parameters) and the source taint of its language: a value
// that leaves the runtime and comes back keeps its labels.
func codeResult(e *env, res *value.Variable, lang string) *value.Variable {
	for _, p := range e.params {
		res.Security = res.Security.Merge(p.val.Security)
	}
	res.Security = res.Security.WithTaint(taint.SourceFor(taint.BodyCode, lang))
	return res
}

// runCodeDirective runs the code of a `/run` directive as a hooked
// operation (SPEC §5.5, §10 P19): a command is prepared first, and its one
// input is the interpolated command text carrying the union of the
// interpolated values' labels; sh, js and node blocks have no inputs.
func (in *interp) runCodeDirective(e *env, d *ast.RunDirective, c *ast.CodeExpr) (*value.Variable, error) {
	op := &hooks.OperationContext{Type: "run", Subtype: c.Lang, Command: commandText(c), Location: location(d.Pos)}
	switch c.Lang {
	case "cmd", "", "run":
	default:
		codeOpLabels(op, c.Lang, commandLine(c))
		return in.hooked(e, d, op, nil, func([]*value.Variable) (*value.Variable, error) {
			return in.runCode(e, c, nil)
		})
	}
	if in.opts.DisableCode {
		return in.runCode(e, c, nil)
	}
	op.Subtype = "runCommand"
	op.OpLabels, op.Commands = commandOpLabels(commandLine(c))
	pc, err := in.prepareCommand(e, c)
	if err != nil {
		return nil, err
	}
	input := value.New(pc.text())
	input.Security = pc.desc
	in.setRunInput(input, pc)
	defer in.setRunInput(input, nil)
	return in.hooked(e, d, op, []*value.Variable{input}, func(inputs []*value.Variable) (*value.Variable, error) {
		run := pc
		pc.flowChecked = true
		if inputs[0] != input {
			in.redact.add(rawText(inputs[0]), inputs[0].Security)
			// A transform replaced the command text. It may change the
			// values only: the new text is fitted onto the command's
			// literal text, and what lies between becomes the values,
			// still passed as data. Never run it as shell text.
			var err error
			if run, err = pc.transformed(inputs[0]); err != nil {
				return nil, atPos(err, KindGuard, d.Pos)
			}
		}
		res, err := in.runPrepared(run, nil)
		if err != nil {
			return nil, codeError(err, c.Pos)
		}
		return codeResult(e, res, "cmd"), nil
	})
}

func codeError(err error, pos ast.Pos) error {
	if ge, ok := err.(*guard.Error); ok {
		return guardFailure(ge, pos)
	}
	var ce *code.Error
	if errors.As(err, &ce) {
		kind := KindCommand
		if ce.Lang == "js" || ce.Lang == "node" {
			kind = KindCode
		}
		hint := ce.Hint
		switch {
		case ce.Interrupted:
			kind = KindInterrupt
			hint = "the run was cancelled or hit its deadline"
		case hint != "":
		case kind == KindCode:
			hint = "the " + ce.Lang + " block threw an exception; fix the code or guard the failing case"
		default:
			hint = "the command failed; run it in a shell to see why, or handle the failure in the script"
		}
		return &Error{Kind: kind, Pos: blockPos(pos, ce), Message: ce.Message, Hint: hint, Err: err}
	}
	return atPos(err, KindCommand, pos)
}

// blockPos points at the line of a JS exception inside its block. The body
// starts on the line of the opening brace, so body line n is file line
// pos.Line+n-1; columns are only exact from the second line on.
func blockPos(pos ast.Pos, ce *code.Error) ast.Pos {
	if ce.Line <= 1 {
		return pos
	}
	pos.Line += ce.Line - 1
	pos.Col = ce.Column
	pos.Offset = 0
	return pos
}

func (in *interp) runJS(e *env, c *ast.CodeExpr) (*value.Variable, error) {
	if err := in.checkCodePolicy(c.Lang, c.Code); err != nil {
		return nil, err
	}
	var binds []code.Binding
	hasMx := false
	for _, p := range e.params {
		if p.name == "mx" {
			hasMx = true
		}
		binds = append(binds, code.Binding{Name: p.name, Value: jsValue(p.val)})
	}
	var mx *value.Variable
	if !hasMx {
		mx = e.mxObject()
		binds = append(binds, code.Binding{Name: "mx", Value: mx.Data})
	}
	eng := in.codeEngine()
	var out any
	var err error
	if c.Lang == "node" {
		out, err = eng.RunNode(in.ctx, c.Code, binds)
	} else {
		out, err = eng.RunJS(in.ctx, c.Code, binds)
	}
	if err != nil {
		return nil, err
	}
	out = value.FromGo(out)
	res := value.New(out)
	if s, ok := out.(string); ok {
		res = textOutput(s)
		// A string a block returned stays a string for the next block.
		res.Source = ""
	}
	if mx != nil {
		// The code can read anything `mx` holds (a stage input, a
		// guard's arguments), so its result carries all of it.
		res.Security = res.Security.Merge(mx.Security)
	}
	return res, nil
}

// runCommand runs a cmd block: literal text stays shell text, interpolated
// values reach the shell as data through BuildCommand.
func (in *interp) runCommand(e *env, c *ast.CodeExpr, stdin *value.Variable) (*value.Variable, error) {
	pc, err := in.prepareCommand(e, c)
	if err != nil {
		return nil, err
	}
	pc.ambient = paramsDescriptor(e)
	if stdin != nil {
		pc.desc = pc.desc.Merge(stdin.Security)
	}
	return in.runPrepared(pc, stdinText(stdin))
}

// stdinText is the text fed to a command on stdin; nil for none.
func stdinText(v *value.Variable) *string {
	if v == nil {
		return nil
	}
	s := rawText(v)
	return &s
}

// preparedCommand is a cmd block with its interpolations evaluated but not
// yet run: what a `/run` operation shows its hooks before anything runs.
type preparedCommand struct {
	segs []code.Segment
	// desc is the union of the interpolated values' descriptors.
	desc taint.Descriptor
	// flowChecked is set when the `/run` operation running the command
	// was label-flow checked already.
	flowChecked bool
	// ambient is what may reach the process besides the interpolated
	// values (the exe's parameters, one of which may be stdin): files
	// the command writes carry it too (see runShellTracked).
	ambient taint.Descriptor
	// dir is the working directory the command's header names ("" for
	// the base directory).
	dir string
	// args are the variables the header names (`cmd(@a) { … }`), given
	// to the command as environment variables ($a), as in mlld.
	args map[string]string
}

// text is the command as the shell will see it, values inlined (the input
// of a `/run cmd {…}` operation, SPEC §10 P19).
func (pc *preparedCommand) text() string {
	var b strings.Builder
	for _, s := range pc.segs {
		if s.IsValue {
			b.WriteString(s.Value)
		} else {
			b.WriteString(s.Literal)
		}
	}
	return b.String()
}

// parts is the command as the policy checks it: literal text, and
// values that the shell receives as data.
func (pc *preparedCommand) parts() []policy.CommandPart {
	out := make([]policy.CommandPart, len(pc.segs))
	for i, s := range pc.segs {
		if s.IsValue {
			out[i] = policy.CommandPart{Text: s.Value, Value: true}
		} else {
			out[i] = policy.CommandPart{Text: s.Literal}
		}
	}
	return out
}

func (in *interp) prepareCommand(e *env, c *ast.CodeExpr) (*preparedCommand, error) {
	pc := &preparedCommand{}
	dir, err := in.workingDir(e, c)
	if err != nil {
		return nil, err
	}
	pc.dir = dir
	for _, name := range c.Args {
		v, ok := e.lookup(name)
		if !ok {
			return nil, newError(KindVariable, c.Pos, "define the variable before passing it to the block",
				"Variable not found: %s", name)
		}
		if pc.args == nil {
			pc.args = map[string]string{}
		}
		pc.args[name] = rawText(v)
		pc.desc = pc.desc.Merge(v.Security)
	}
	if c.Command == nil {
		pc.segs = append(pc.segs, code.Segment{Literal: c.Code})
		return pc, nil
	}
	// size is the command's length with values inlined, as pc.text()
	// and the environment of the shell will copy it.
	size := 0
	for _, part := range c.Command.Parts {
		switch p := part.(type) {
		case *ast.TextPart:
			size += len(p.Text)
			pc.segs = append(pc.segs, code.Segment{Literal: p.Text})
		case *ast.InterpPart:
			text, literal, v, err := in.interpolatePart(e, p)
			if err != nil {
				return nil, err
			}
			if err := in.stringFits(p.Pos, "the command", size, len(text)); err != nil {
				return nil, err
			}
			size += len(text)
			if v != nil {
				pc.desc = pc.desc.Merge(v.Security)
				in.redact.add(text, v.Security)
			}
			if literal {
				pc.segs = append(pc.segs, code.Segment{Literal: text})
			} else {
				pc.segs = append(pc.segs, commandSegments(v, text, p.OmitFalsy)...)
			}
		}
	}
	return pc, nil
}

func (in *interp) runPrepared(pc *preparedCommand, stdin *string) (*value.Variable, error) {
	if err := in.checkCommandPolicy(pc, pc.flowChecked); err != nil {
		return nil, err
	}
	script, envVars := code.BuildCommand(pc.segs)
	for name, val := range pc.args {
		envVars[name] = val
	}
	req := code.ShellRequest{Lang: "cmd", Script: script, Env: envVars, Dir: pc.dir}
	if stdin != nil {
		req.Stdin, req.HasStdin = *stdin, true
	}
	out, stored, err := in.runShellTracked(req, pc.desc.Merge(pc.ambient), "cmd")
	if err != nil {
		return nil, err
	}
	res := textOutput(out)
	res.Security = pc.desc.Merge(stored)
	return res, nil
}

// runShell runs a command or shell block in the base directory; never,
// in a run without one, in whatever directory the embedding process
// happens to be in.
func (in *interp) runShell(req code.ShellRequest) (string, error) {
	if in.files.base == "" {
		return "", noBaseError("running a "+req.Lang+" command", ast.Pos{})
	}
	return in.codeEngine().RunShell(in.ctx, req)
}

// runShellBlock runs an sh/bash block with the exe's parameters as
// environment variables.
func (in *interp) runShellBlock(e *env, c *ast.CodeExpr, stdin *string) (*value.Variable, error) {
	if err := in.checkCodePolicy(c.Lang, c.Code); err != nil {
		return nil, err
	}
	envVars := map[string]string{}
	for _, p := range e.params {
		envVars[p.name] = rawText(p.val)
	}
	dir, err := in.workingDir(e, c)
	if err != nil {
		return nil, err
	}
	req := code.ShellRequest{Lang: c.Lang, Script: c.Code, Env: envVars, Dir: dir}
	if stdin != nil {
		req.Stdin, req.HasStdin = *stdin, true
	}
	out, stored, err := in.runShellTracked(req, paramsDescriptor(e), c.Lang)
	if err != nil {
		return nil, err
	}
	res := textOutput(out)
	res.Security = stored
	return res, nil
}

// workingDir resolves the working directory a code block's header names
// (`cmd:/tmp { … }`, `sh:@dir { … }`), as mlld does: "" (none) when there
// is none or it is empty or "."; `~` and `~/…` are the home directory;
// anything else must be an absolute path to an existing directory.
func (in *interp) workingDir(e *env, c *ast.CodeExpr) (string, error) {
	if c.Dir == nil {
		return "", nil
	}
	v, err := in.evalString(e, c.Dir)
	if err != nil {
		return "", err
	}
	dir := strings.TrimSpace(rawText(v))
	if dir == "" || dir == "." {
		return "", nil
	}
	if dir == "~" || strings.HasPrefix(dir, "~/") {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", newError(KindCommand, c.Pos, "set HOME, or name an absolute directory", "Working directory %s: no home directory: %v", dir, err)
		}
		dir = path.Join(home, strings.TrimPrefix(dir, "~"))
	}
	if !path.IsAbs(dir) {
		return "", newError(KindCommand, c.Pos, "name an absolute directory such as /tmp, or ~", "Working directory must start with \"/\": %s", dir)
	}
	dir = path.Clean(dir)
	st, err := os.Stat(dir)
	switch {
	case err != nil:
		return "", newError(KindCommand, c.Pos, "create it first, or name an existing directory", "Working directory does not exist: %s", dir)
	case !st.IsDir():
		return "", newError(KindCommand, c.Pos, "name a directory", "Working directory must be a directory: %s", dir)
	}
	return dir, nil
}
