// Package value defines Variable, the one type every evaluated value has in
// guardrun, with its security descriptor, and the pure rules over values:
// display and interpolation text, JSON, truthiness, equality, tolerant
// comparison, builtin methods and builtin transformers.
//
// value must not import interp, grammar or cmd.
package value
