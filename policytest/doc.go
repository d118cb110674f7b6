// Package policytest runs a policy author's tests: the engine of
// `guardrun test`. Two kinds of test are found under the given paths:
//
//   - script cases in mlld's fixture format (a directory holding
//     example.mld or example.md with expected.md or error.md), run by the
//     conformance package's case runner with mlld's pass rule;
//   - decision tests in `*.test.mld` files, which state a script and the
//     decision, reasons, output and labels the policy must produce.
//
// A decision test file reads like the language:
//
//	>> Tests for agent.mld (comments as in scripts)
//	use "agent.mld"
//
//	test "a secret never reaches the network" [
//	  var secret @key = "sk-live"
//	  show @notify(@key)
//	]
//	expect deny
//	expect reason "cannot flow to 'exfil'"
//	expect decider "no-secret-exfil"
//
//	test "a report goes out" [
//	  var @r = @notify("build finished")
//	  show @r
//	]
//	expect allow
//	expect output "notified: build finished"
//	expect @r.mx.labels excludes "secret"
//
// `use` names the policy file the tests run with (one per file, relative
// to the test file); a test's body is written in that file's mode and
// runs after it, in a fresh run. Expectations, each on its own line after
// the test:
//
//	expect allow | deny | retry        the decision: deny or retry when a
//	                                   guard or policy decided so (also
//	                                   when a denied => arm handled it),
//	                                   allow when nothing did and the
//	                                   run succeeded
//	expect reason "text" | /regexp/    a denial's reason
//	expect decider "text"              the guard or rule that decided
//	                                   ("@noSecretToNet", "no-secret-exfil")
//	expect output "text"               the document, exactly (trimmed)
//	expect output contains "text"      the document contains text
//	expect error "text"                the run failed with this message
//	expect @var.mx.labels includes "l" the variable's labels
//	expect @var.mx.labels excludes "l"
//
// Agent event sequences will be a second kind of test body (an `events
// [ … ]` block sharing one session) when the agent engine lands: Test has
// a Kind, and a body kind needs only a parser case and a run function
// (see runDecision).
//
// Coverage (Coverage) lists every guard and every when arm of the files
// under test and whether any test reached it.
package policytest
