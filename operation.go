package guardrun

import (
	"github.com/guardrun/guardrun/interp"
	"github.com/guardrun/guardrun/interp/guard"
	"github.com/guardrun/guardrun/interp/hooks"
	"github.com/guardrun/guardrun/interp/value"
)

// The types a Machine's decisions are made of, so that an embedder (and
// the agent engine, which decides through these names) needs no package
// but this one to describe an operation and read its verdict.

// OperationContext describes the operation a Machine decides: its type
// ("exe", "run", …), name, labels, operation labels (op:cmd:curl),
// command line and the names of its inputs. It is what guards read as
// `@mx.op`.
type OperationContext = hooks.OperationContext

// Variable is a value as guards see it: its data and its security
// descriptor (labels, taint, sources). An Operation's Inputs are
// Variables; Labelled and Var make one from a Go value.
type Variable = value.Variable

// ToolCall describes a tool call for a Machine to decide: the tool's name,
// the labels its collection declares, the names of its inputs and, for a
// command tool, the command line. Its Operation method gives the
// OperationContext.
type ToolCall = interp.ToolCall

// Note is a guard's with-clause `context` or `message` text with the
// guard that gave it (Verdict.Notes).
type Note = guard.Note

// MaxTries is the retry budget of an operation: a guard's retry on the
// last try is a denial.
const MaxTries = guard.MaxTries
