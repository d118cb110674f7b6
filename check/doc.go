// Package check finds mistakes in guardrun scripts without running them:
// the engine of `guardrun check`. It reads the syntax tree only (it
// imports ast and grammar, and interp/policy for the built-in rules'
// meaning and name suggestions; never the evaluator) and reports
// positioned findings:
//
//   - names a guard or policy uses that do not exist: variables, exes,
//     fields of @mx and of object variables (errors: at run time such a
//     guard fails closed and denies everything it covers);
//   - guard filters that can never match, `when` arms after `*`, guards
//     shadowed by an earlier one, names defined twice;
//   - label flow: paths by which a labelled value can reach a sink (an
//     exe with a risk label, a command, a file write) with no guard or
//     policy rule on the way (warnings).
//
// The label-flow analysis is a may-analysis over variables, templates,
// exe calls (arguments to parameters, parameters to results and inner
// sinks), pipelines, for loops, when values and files written and read
// back through literal paths. It does not follow: implicit flows through
// conditions, imported modules (their exes, guards and policies are not
// read), the inside of js/sh code (a result is assumed to depend on every
// parameter), computed references (`@obj[@k]()`), labels a guard adds
// to the values it sees (`trusted @input`, addLabels), label removal (a
// value keeps every label it may have had) or what a covering guard does
// with the value (a guard that can deny, retry or transform on the path
// counts as covering it). TestLabelFlowSoundOnCorpora checks the claim
// against real runs of the fixtures and corpora.
package check
