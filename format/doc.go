// Package format prints guardrun scripts in one canonical layout: the
// engine of `guardrun fmt`. It works on the syntax tree from grammar, so a
// formatted file parses to the same tree as the original (positions
// aside); every directive it rewrites is checked against that rule, and
// one it cannot print faithfully is kept as written.
//
// What is kept byte for byte: markdown prose, the frontmatter, string
// and template literals (as written, quotes and escapes included), code
// block bodies, and any directive that holds a comment (the lexer drops
// comments inside a directive, so reprinting one would lose it). Comment
// lines between directives are kept in place.
//
// format imports only ast and grammar.
package format
