// Package grammar owns the participle lexer and grammar of guardrun scripts
// and lowers the participle parse tree into ast nodes. Parse errors carry a
// file:line:col position, the offending text and a hint.
//
// grammar imports only ast; it knows nothing of evaluation.
package grammar
