// Package format prints guardrun scripts in one canonical layout: the
// engine of `guardrun fmt`. It works on the syntax tree from grammar, so a
// formatted file parses to the same tree as the original (positions
// aside); every directive it rewrites is checked against that rule, and
// one it cannot print faithfully is kept as written.
//
// What is kept byte for byte: markdown prose, the frontmatter, string
// and template literals (as written, quotes and escapes included) and
// code block bodies. The lexer drops comments inside a directive, so the
// tree does not hold them: comment lines between directives stay in
// place, a comment line right before a when arm or a block statement is
// put back before it, as is the comment ending a one-line directive, and
// a directive with any other comment is kept as written.
//
// format imports only ast and grammar.
package format
