package guardrun

import (
	"maps"

	"github.com/guardrun/guardrun/ast"
	"github.com/guardrun/guardrun/interp"
)

// Var is a value handed to a script with its labels and sources: a
// per-call variable (WithVars; Operation.Vars for a loaded Machine's
// decisions), a Go function's argument, or a Go function's result when
// the function gives its labels itself. Labels make the value labelled
// data exactly as `var secret @x = …` does: guards, policies and taint
// see them. Sources are provenance entries (`@x.mx.sources`).
type Var = interp.Var

// Labelled is value with labels (`secret`, `untrusted`, `pii`…): the
// labelled form of a per-call variable or a Go function's result.
func Labelled(value any, labels ...string) Var {
	return Var{Value: value, Labels: labels}
}

// WithVars gives one Run its per-call inputs: each key is read by the
// script as `@key`, as if its top level had defined it, and each value
// is a Go value (nil, bool, numbers, strings, slices and arrays, maps
// with string keys, nested) or a Var with labels (Labelled). The
// variables belong to this run alone, so one Program runs concurrently
// with different inputs. Several WithVars add up.
//
// Run refuses, with a UsageError naming the variable, a name scripts
// cannot write or the language reserves (@mx, @input, guard helpers,
// builtins…), and a value with no meaning in the language, naming the
// key and its Go type; a name the script's own top level defines is a
// VariableError at the script's definition. Imported modules do not see
// per-call variables. Load takes none: a loaded Machine's decisions each
// take theirs (Operation.Vars).
func WithVars(vars map[string]any) RunOption {
	return func(c *runConfig) {
		if c.vars == nil {
			c.vars = map[string]any{}
		}
		maps.Copy(c.vars, vars)
	}
}

// DeclareVars names the per-call variables the program's runs are given
// (WithVars), so that WithStrictCheck knows them and Compile refuses a
// script whose own top level defines one.
func DeclareVars(names ...string) CompileOption {
	return func(c *compileConfig) { c.declared = append(c.declared, names...) }
}

// usageError is the error of an embedder's mistake in calling the API.
func usageError(file, msg, hint string, cause error) *Error {
	return &Error{Name: UsageErrorName, Message: msg, Pos: ast.Pos{File: file}, Hint: hint, cause: cause}
}
