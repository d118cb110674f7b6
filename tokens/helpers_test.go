package tokens

import (
	"fmt"
	"weak"
)

func weakKey[T any](p *T) weak.Pointer[T] { return weak.Make(p) }

func errorf(format string, args ...any) error { return fmt.Errorf(format, args...) }
