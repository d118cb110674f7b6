package main

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// TestGeneratedCodecIsCurrent: the checked-in codec is what the generator
// makes from today's ast, so a new node type or field is never dropped.
func TestGeneratedCodecIsCurrent(t *testing.T) {
	want, err := generate("../../ast")
	if err != nil {
		t.Fatal(err)
	}
	have, err := os.ReadFile("../astcodec/codec_gen.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(have, want) {
		t.Fatal("internal/astcodec/codec_gen.go is stale: run `go generate ./internal/astcodec`")
	}
}

// TestGenerateRefusesUnlistedTypes: an ast struct type missing from types
// fails generation instead of being left out of the codec.
func TestGenerateRefusesUnlistedTypes(t *testing.T) {
	dir := t.TempDir()
	src, err := os.ReadFile("../../ast/ast.go")
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(dir+"/ast.go", src, 0o644)
	os.WriteFile(dir+"/new.go", []byte("package ast\n\ntype Brand struct{ Pos Pos }\n"), 0o644)
	_, err = generate(dir)
	if err == nil || !strings.Contains(err.Error(), "ast.Brand") {
		t.Fatalf("generate = %v, want an error naming ast.Brand", err)
	}
}
