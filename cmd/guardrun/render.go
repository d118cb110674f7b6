package main

import (
	"errors"

	"github.com/guardrun/guardrun"
)

// renderSourceError renders err, the parse error check or fmt met in
// file, the way a run renders every error (guardrun.Error.Render):
// position, message, the offending line with a caret, and the hint.
// The facade's compile gives the same error in that shape.
func renderSourceError(err error, file string, src []byte) string {
	_, cerr := guardrun.Compile(file, src, guardrun.WithMode(guardrun.ModeForName(file)))
	var ge *guardrun.Error
	if errors.As(cerr, &ge) && ge.Error() == err.Error() {
		return ge.Render()
	}
	return err.Error() + "\n"
}
