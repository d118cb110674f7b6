// Package code runs the code blocks of a script: shell (`cmd {…}`,
// `sh {…}`, `bash {…}`, through /bin/sh) itself, and JavaScript (`js {…}`
// and `node {…}`) through the engine registered with RegisterJS, with a
// time limit and an output cap on every run, and a memory cap on JS
// blocks. BuildCommand turns a command template with interpolated values
// into a script that passes every value through an environment variable,
// so no value can inject shell syntax.
//
// The JavaScript engine (goja, package github.com/guardrun/guardrun/js)
// is a registered plug-in, database/sql-driver style, because linking it
// costs every program milliseconds of start-up in package inits: a
// program that never imports it (guardrun-hook) does not pay them, and a
// JS block there fails closed with an error wrapping ErrNotLinked.
//
// code owns execution only: binding names, turning results into values
// and reporting positions is the interpreter's job. It must not import
// interp, grammar or any JavaScript engine; it may import interp/value.
package code
