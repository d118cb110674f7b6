package main

import (
	"io"
	"os"

	"github.com/guardrun/guardrun/hook"
)

// runHook answers one agent hook event read on stdin: the same code as
// guardrun-hook (hook.Main).
func runHook(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return hook.Main(args, stdin, stdout, stderr)
}

// stdinReader is the process's stdin (tests drive runHook directly).
var stdinReader io.Reader = os.Stdin

// runExec is `guardrun exec` (hook.Exec).
func runExec(args []string, stdout, stderr io.Writer) int { return hook.Exec(args, stderr) }
