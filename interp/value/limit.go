package value

import (
	"context"
	"fmt"
	"strings"
)

// MaxNesting is how deeply JSON text may nest arrays and objects. The
// script syntax stops at the same depth; deeper data arrives only as
// text (a file, a command's output), and without a bound 60 KB of `[`
// made the indented display quadratic in size.
const MaxNesting = 200

// MaxString caps the bytes of one string the evaluator builds: a
// template, a join, JSON/XML/display text, the result of a string
// method. Without it a few interpolations of a large value, or a
// doubling template, end in a fatal out-of-memory that no recover
// catches. The interpreter lowers it for a run whose memory budget is
// small (see interp.Options.MemoryLimit).
const MaxString = 64 << 20

// LimitError reports that building a value would pass a size limit. The
// interpreter reports it as a positioned error of the run; writers that
// cannot return an error (Text, ToJSON) panic with it, and the
// interpreter recovers it as this error.
type LimitError struct {
	Message string
	Hint    string
}

// Error returns Message.
func (e *LimitError) Error() string { return e.Message }

// limitHint names what the author can do about a LimitError.
const limitHint = "build less data (process it in pieces, or write it to a file), or raise the run's memory budget (the WithMemoryLimit option, --memory-limit)"

// StringLimitError is the error for a string of what (".join()", "the
// template"…) that would grow past max bytes.
func StringLimitError(what string, max int) *LimitError {
	return &LimitError{
		Message: fmt.Sprintf("memory limit exceeded: %s would build a string larger than %s", what, FormatBytes(int64(max))),
		Hint:    limitHint,
	}
}

// CatchLimit runs build and turns a LimitError it panics with into an
// error; other panics go on.
func CatchLimit(build func() string) (s string, err error) {
	defer func() {
		if r := recover(); r != nil {
			le, ok := r.(*LimitError)
			if !ok {
				panic(r)
			}
			err = le
		}
	}()
	return build(), nil
}

// cappedBuilder is a strings.Builder that panics with a LimitError once
// it holds more than MaxString bytes: the writers behind Text and ToJSON
// have no error to return, and their output can be far larger than their
// input (indentation, repeated references to one large string).
//
// With ctx set it also panics with an *InterruptedError once ctx ends, so
// a large rendering stops at the run's deadline.
type cappedBuilder struct {
	strings.Builder
	what string
	ctx  context.Context
	// nextCheck is the length at which ctx is looked at next.
	nextCheck int
}

// ctxCheckBytes is how much output is written between two looks at ctx.
const ctxCheckBytes = 256 << 10

func (b *cappedBuilder) check() {
	if b.Len() > MaxString {
		panic(StringLimitError(b.what, MaxString))
	}
	if b.ctx != nil && b.Len() >= b.nextCheck {
		if err := b.ctx.Err(); err != nil {
			panic(&InterruptedError{Err: err, What: b.what})
		}
		b.nextCheck = b.Len() + ctxCheckBytes
	}
}

// InterruptedError reports that the run's context ended while a writer
// built What. Like LimitError it is raised as a panic by writers without
// an error return and recovered by the interpreter.
type InterruptedError struct {
	Err  error
	What string
}

// Error says what was interrupted and why.
func (e *InterruptedError) Error() string {
	return fmt.Sprintf("run interrupted while writing %s: %v", e.What, e.Err)
}

// Unwrap returns the context's error.
func (e *InterruptedError) Unwrap() error { return e.Err }

// FormatBytes writes n in the largest binary unit that divides it.
func FormatBytes(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
