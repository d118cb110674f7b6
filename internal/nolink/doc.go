// Package nolink holds the tests of what a program built without the
// JavaScript engine and the token counter sees (guardrun-hook, an
// embedder that imports neither): its test binary, unlike every other
// package's that runs scripts, must not import github.com/guardrun/guardrun/js
// or github.com/guardrun/guardrun/tokens. It has no code of its own.
package nolink
