// Package lang holds the language's fixed names: the builtins a script
// can call without declaring them, the helpers bound inside guards, and
// the fields of @mx, of a value's .mx, of @mx.op and of @mx.guard. The
// grammar (which names no script may bind), the interpreter (what each
// name resolves to) and check (which names exist) all read these tables,
// so that the three cannot disagree about what a name is.
//
// lang imports nothing of ours.
package lang
