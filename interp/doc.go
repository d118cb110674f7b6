// Package interp evaluates a parsed guardrun document: environments and
// scopes, directives and expressions, exes, pipelines, effects and output
// assembly. File access (imports, <file>, output, append) is confined to
// the run's base directory; guard and policy directives stop the run until
// their evaluation exists, because ignoring a policy would fail open.
//
// interp imports ast, interp/value and interp/code; it never imports
// grammar (imports are parsed through Options.Parse) or cmd.
package interp
