// Package grammar owns the lexer and the participle grammar of guardrun
// scripts and lowers the participle parse tree into ast nodes. Parse errors
// carry a file:line:col position, the offending text and a hint.
//
// The lexer is hand-written (lexer.go, lexer_states.go) and implements
// participle's lexer interfaces; participle does all the parsing. A
// document is split into directive spans (document.go, scan.go); each span
// is lexed once and its tokens are replayed to participle. Because
// participle recurses per nesting level, the scan also caps nesting
// (nesting.go) so that no input can overflow the stack.
//
// participle backtracks: an alternative that fails is retried by the next
// one, and a failure nested n deep can cost k^n if every level offers
// two readings of the same tokens. The grammar therefore gives each
// construct one reading and leaves the choice to the lowering: a `[`
// after = or => is one rule (bracketExpr, decided in lower_bracket.go),
// run, when and for are expressions only (a bare one is a statement),
// an accessor's `[` or `(` touches what it applies to (IndexOpen and
// CallOpen tokens), and the parser commits to a branch once it has
// consumed more than two tokens (UseLookahead(2)). backtracking_test.go
// checks that doubling the nesting of such shapes only doubles the work.
//
// A panic inside the parser is a guardrun bug; it is returned as an
// *InternalError wrapped in a positioned *Error, never as a plain one.
//
// grammar imports only ast; it knows nothing of evaluation.
package grammar
