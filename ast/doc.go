// Package ast defines the position-carrying syntax tree of a guardrun script:
// documents, directives, expressions, templates, pipelines, guards and
// policies. The grammar package produces it; the interpreter consumes it.
//
// ast imports nothing of ours and knows nothing of evaluation.
package ast
