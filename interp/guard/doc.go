// Package guard owns guardrun's guards (SPEC §5): the registry of guard
// directives in registration order, which guards an operation selects
// (data-label guards per input, operation and function guards per
// operation), the reduction of their decisions, the retry bookkeeping of
// `@mx.guard.try`, and GuardError.
//
// It does not evaluate script code: the interpreter hands it an Evaluator
// that runs one guard's rules. It must not import package interp (interp
// imports it), nor anything that runs commands or code.
package guard
