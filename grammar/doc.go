// Package grammar owns the lexer and the participle grammar of guardrun
// scripts and lowers the participle parse tree into ast nodes. Parse errors
// carry a file:line:col position, the offending text and a hint.
//
// The lexer is hand-written (lexer.go, lexer_states.go) and implements
// participle's lexer interfaces; participle does all the parsing. A
// document is split into directive spans (document.go, scan.go); each span
// is lexed once and its tokens are replayed to participle.
//
// grammar imports only ast; it knows nothing of evaluation.
package grammar
