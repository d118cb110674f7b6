package conformance

import (
	"context"
	"errors"
	"os"

	"github.com/guardrun/guardrun"
)

// Facade runs a script in process through the guardrun facade.
func Facade(ctx context.Context, s Script) Outcome {
	prg, err := guardrun.Compile(s.Name, s.Source, guardrun.WithMode(s.Mode))
	if err != nil {
		return Outcome{Err: asError(err)}
	}
	// A private ledger per case: cases are throwaway directories, whose
	// ledgers should not pile up in the user's state directory.
	state, err := os.MkdirTemp("", "guardrun-state-")
	if err != nil {
		return Outcome{Err: asError(err)}
	}
	defer os.RemoveAll(state)
	res, err := prg.Run(ctx, guardrun.WithDir(s.Dir), guardrun.WithStateDir(state), guardrun.WithBaseAsRoot())
	out := Outcome{Document: res.Document, Stdout: res.Stdout, Stderr: res.Stderr}
	if err != nil {
		out.Err = asError(err)
	}
	return out
}

func asError(err error) *guardrun.Error {
	var e *guardrun.Error
	if errors.As(err, &e) {
		return e
	}
	return &guardrun.Error{Name: "InterpreterError", Message: err.Error()}
}
