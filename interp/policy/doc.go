// Package policy holds guardrun's policy model and its pure checks, after
// mlld's policies: Parse validates one policy object into a Config layer, a
// Set composes the layers a run declares (`policy` directives, `import
// policy`, union(...)), and the Set answers the questions the interpreter
// asks before an operation runs: may these labels flow to these targets
// (CheckFlow), may this command line or code block run (CheckCommand,
// CheckCode), does an llm call mark its output influenced (Influenced). It
// also renders the merged configuration for @mx.policy.configs.
//
// The package decides; it never evaluates, prints or runs anything. The
// interpreter turns a Denial into a guard denial (flow denials are
// catchable and privileged-overridable unless locked; capability denials
// are neither).
//
// Command lines an agent sends are parsed as bash with
// mvdan.cc/sh/v3/syntax (CommandLineOpLabels, CommandLineFacts); a
// script's `run cmd` lines, whose values are data, go through the
// package's own splitter, cross-checked against that parser.
//
// policy imports only the standard library, mvdan.cc/sh/v3/syntax, ast
// (for positions) and interp/value (for the evaluated object a policy is
// written as). It must
// not import interp, interp/guard or interp/hooks: those depend on it.
package policy
