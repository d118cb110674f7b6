package js

import "github.com/guardrun/guardrun/interp/code"

// The tests drive the engine through code.Engine, as the interpreter does.
type (
	Binding = code.Binding
	Options = code.Options
	Error   = code.Error
)

func NewEngine(o Options) *code.Engine { return code.NewEngine(o) }
