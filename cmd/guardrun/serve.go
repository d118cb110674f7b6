package main

import (
	"io"

	"github.com/guardrun/guardrun/serve"
)

// runServe is `guardrun serve` (serve.Main): the decision server for
// agent frameworks.
func runServe(args []string, stdout, stderr io.Writer) int {
	return serve.Main(args, stdinReader, stdout, stderr)
}
