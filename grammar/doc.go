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
// A panic inside the parser is a guardrun bug; it is returned as an
// *InternalError wrapped in a positioned *Error, never as a plain one.
//
// grammar imports only ast; it knows nothing of evaluation.
package grammar
