// Package guardrun is the embedding API of the guardrun interpreter: compile
// a script once into a Program, then Run it any number of times, from any
// number of goroutines, each run with its own options and its own fresh
// interpreter state.
//
//	prg, err := guardrun.CompileFile("policy.mld")
//	if err != nil { ... }
//	res, err := prg.Run(ctx, guardrun.WithDir("."), guardrun.WithoutCode())
//	fmt.Print(res.Document)
//
// Each run takes its own inputs (WithVars, Labelled for labelled data),
// and scripts and guards call the embedder's Go functions
// (WithFunctions) as @name(args):
//
//	prg, err := guardrun.Compile("policy.mld", src, guardrun.WithFunctions(lookup), guardrun.WithStrictCheck())
//	res, err := prg.Run(ctx, guardrun.WithVars(map[string]any{"request": req}))
//
// Every failure a script author can cause comes back as an *Error carrying a
// name (ParseErrorName, VariableErrorName, CommandErrorName, FileErrorName,
// GuardErrorName, PolicyErrorName, ...), a file:line:col position, the
// offending source line and a hint; Render formats it for a terminal. A
// refusal — a guard's, a policy's, a Go hook's, or a guard that failed
// (GuardFailureName) — also has a Denial, the shape the agent engine's
// denials share (package agent).
// The package never panics on user input: a panic inside the parser, the
// evaluator or the facade is recovered and reported as an *Error named
// InternalError whose Internal method returns true.
//
// JavaScript blocks and token counts need engines that are linked by a
// blank import, because their packages cost every process start-up time
// in package inits:
//
//	import _ "github.com/guardrun/guardrun/js"     // js and node blocks
//	import _ "github.com/guardrun/guardrun/tokens" // .mx.tokens
//
// This package imports neither (nor must it: the agent engine and
// guardrun-hook are built on it and stay without them). Without them,
// Compile and Load refuse a script that needs one with an *Error wrapping
// ErrNotLinked, at the construct, before anything runs.
package guardrun
