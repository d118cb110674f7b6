package conformance

import (
	"context"
	"errors"

	"github.com/guardrun/guardrun"
)

// Facade runs a script in process through the guardrun facade.
func Facade(ctx context.Context, s Script) Outcome {
	prg, err := guardrun.Compile(s.Name, s.Source, guardrun.WithMode(s.Mode))
	if err != nil {
		return Outcome{Err: asError(err)}
	}
	res, err := prg.Run(ctx, guardrun.WithDir(s.Dir))
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
