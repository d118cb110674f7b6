package guardrun

import (
	"fmt"
	"slices"

	"github.com/guardrun/guardrun/ast"
	"github.com/guardrun/guardrun/check"
)

// WithStrictCheck makes Compile run `guardrun check` over the script and
// refuse it when a finding is an error (a CheckError listing them in
// Error.Findings, positioned at the first): a guard or policy using a
// name that does not exist (`@tpyo`), which at run time would fail
// closed and deny every operation it covers, a filter that never
// matches, a name defined twice. An agent policy (`.guard`) is checked
// as `guardrun check` checks one. Go functions (WithFunctions) and
// declared per-call variables (DeclareVars) count as defined. Without
// this option nothing is checked: the check costs a pass over the
// script, which a process that compiles per call may not want.
func WithStrictCheck() CompileOption {
	return func(c *compileConfig) { c.strict = true }
}

// WithCheckTools gives WithStrictCheck the tool collection keys in scope
// of an agent policy besides its own (those of the policies it is
// layered under, such as "{Deploy,Ship}"), as check.AgentDocument takes
// them.
func WithCheckTools(patterns ...string) CompileOption {
	return func(c *compileConfig) { c.checkTools = append(c.checkTools, patterns...) }
}

// StrictCheck runs WithStrictCheck's pass over the compiled program: the
// mistakes `guardrun check` reports as errors refuse it, as a CheckError
// listing them (nil when there are none). tools are WithCheckTools'
// patterns: a host that learns the tools in scope only when the program
// has loaded (the agent engine, whose policies import tool collections)
// checks after Load.
func (p *Program) StrictCheck(tools ...string) error {
	cfg := compileConfig{declared: p.declared, checkTools: tools}
	if err := strictCheck(p.doc, cfg, p.funcs.Names(), source{name: p.name, src: p.src, dir: p.dir}); err != nil {
		return err
	}
	return nil
}

// strictCheck is WithStrictCheck's pass over doc.
func strictCheck(doc *ast.Document, cfg compileConfig, funcs []string, at source) *Error {
	known := slices.Concat(cfg.declared, funcs)
	fs := check.DocumentWith(doc, check.Config{Agent: check.AgentPolicy(at.name), Tools: cfg.checkTools, Names: known})
	var errs []check.Finding
	for _, f := range fs {
		if f.Severity == check.Error {
			errs = append(errs, f)
		}
	}
	if len(errs) == 0 {
		return nil
	}
	first := errs[0]
	msg := first.Message
	if len(errs) > 1 {
		msg += fmt.Sprintf(" (and %d more)", len(errs)-1)
	}
	e := &Error{Name: CheckErrorName, Message: msg, Pos: first.Pos, Findings: errs,
		Hint: "fix the script (`guardrun check` lists every finding), or compile it without WithStrictCheck"}
	if e.Pos.File == "" {
		e.Pos.File = at.name
	}
	e.SourceLine = sourceLine(e.Pos, at)
	return e
}
