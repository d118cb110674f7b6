// Package astcodec encodes a parsed *ast.Document as compact bytes and
// decodes it back, so that a process can load a policy's syntax tree from
// a cache instead of parsing it. The per-type functions (codec_gen.go) are
// written by internal/astgen from the ast types themselves; a test fails
// when they are stale, so no node type or field is ever silently dropped.
//
// Decode treats its input as hostile: every length is checked against the
// bytes that remain, nesting is bounded, and it returns an error rather
// than panicking. A caller falls back to parsing on any error.
//
// astcodec imports only ast of ours (and no reflection or gob at run time).
package astcodec
