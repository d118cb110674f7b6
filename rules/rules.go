// Package rules is guardrun's starter library of agent rules: guard
// modules `guardrun init` installs beside the user's policy (policy.guard
// imports them all). Each module is documented in its header comment and
// tested with allow and deny fixtures (testdata/).
package rules

import "embed"

// FS holds the rule modules and the starter policy.guard.
//
//go:embed *.guard
var FS embed.FS
