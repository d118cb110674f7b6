// Package hooks owns the evaluation-hook contract of the interpreter: the
// Manager that runs pre-hooks and post-hooks around every hooked operation
// (a directive, a user-defined exe call), the OperationContext describing
// that operation, the Decision a pre-hook returns, and the Context that
// keeps the `@mx` namespace as push/pop stacks (`@mx.op`, `@mx.pipe`,
// `@mx.guard`).
//
// The package knows no guard and no policy: those register hooks. It must
// not import interp, interp/guard, grammar or anything above them; it may
// import ast, interp/value and taint.
package hooks
