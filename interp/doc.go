// Package interp evaluates a parsed guardrun document: environments and
// scopes, directives and expressions, exes, pipelines, effects and output
// assembly.
//
// interp imports ast, interp/value and interp/code; it never imports
// grammar's parse tree internals or cmd.
package interp
