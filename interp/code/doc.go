// Package code runs the code blocks of a script: JavaScript (`js {…}` and
// `node {…}`, in an embedded goja runtime, no real Node needed) and shell
// (`cmd {…}`, `sh {…}`, `bash {…}`, through /bin/sh), with a time limit
// and an output cap on every run, and a memory cap on JS blocks.
// BuildCommand turns a command template with interpolated values into a
// script that passes every value through an environment variable, so no
// value can inject shell syntax.
//
// code owns execution only: binding names, turning results into values
// and reporting positions is the interpreter's job. It must not import
// interp or grammar; it may import interp/value.
package code
