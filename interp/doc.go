// Package interp evaluates a parsed guardrun document: environments and
// scopes, directives and expressions, exes, pipelines, effects and output
// assembly. File access (imports, <file>, output, append) is confined to
// the run's base directory.
//
// Every directive and user-defined exe call runs as a hooked operation
// (interp/hooks); the taint post-hook registered on every run merges input
// descriptors into results, and the guard pre- and post-hooks run the
// script's guards (interp/guard selects and reduces; guard_eval.go and
// guard_compile.go evaluate rules; denied handlers, retry runners and
// overrides live here). Policies (interp/policy decides) are checked as
// the first stage of the guard pre-hook and again at the executors, right
// before a command, shell or JavaScript block runs (policy_check.go).
// Writes of labelled data, by output/append or by commands given labelled
// data, are recorded in the audit ledgers (interp/audit; ledgers.go,
// cmdfiles.go) so that loading the file restores its labels.
//
// JavaScript and token counts are plug-ins (interp/code.RegisterJS,
// value.RegisterTokenCounter): CheckEngines rejects, before anything
// runs, a document (the main one, and each module as it is imported)
// that needs one the program was built without.
//
// interp imports ast, taint, interp/value, interp/code, interp/hooks,
// interp/guard, interp/policy and interp/audit; it never imports grammar
// (imports are parsed through Options.Parse), cmd, the JavaScript engine
// (js) or the tokenizer (tokens).
package interp
