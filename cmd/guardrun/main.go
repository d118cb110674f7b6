package main

import (
	"os"

	// The full command runs every script: link the JavaScript engine and
	// the token counter (guardrun-hook links neither).
	_ "github.com/guardrun/guardrun/js"
	_ "github.com/guardrun/guardrun/tokens"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}
