// Command astgen writes internal/astcodec/codec_gen.go: plain encode and
// decode functions for every type of the syntax tree, found by walking
// package ast's types with reflection from ast.Document. Run it with
// `go generate ./internal/astcodec` after changing package ast; a test
// (TestGeneratedCodecIsCurrent) fails while the checked-in file is stale,
// and generation fails for an exported struct type of ast that types
// does not list, or a field type the codec cannot represent exactly.
//
// astgen imports only ast of ours; nothing imports it.
package main
