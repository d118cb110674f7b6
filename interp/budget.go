package interp

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/guardrun/guardrun/ast"
	"github.com/guardrun/guardrun/interp/code"
	"github.com/guardrun/guardrun/interp/value"
)

// DefaultMemoryLimit is a run's memory budget when Options.MemoryLimit is
// zero.
const DefaultMemoryLimit int64 = 512 << 20

// budget is the memory a run may use, checked where memory is taken in
// large amounts: every string the evaluator builds (templates, methods,
// transformers) is capped at stringCap, the collected output at
// outputCap, one JS block's heap growth at limit (code.Options), and a
// watch over the whole run's heap growth ends the run when it passes
// limit. Each breach is a positioned error of the run, never a fatal
// out-of-memory of the process.
type budget struct {
	// limit is the budget in bytes; <= 0 means none (the fixed caps of
	// package value still hold).
	limit int64
	// stringCap caps one built string: value.MaxString, or an eighth of a
	// smaller budget (a string being built can briefly exist twice, and
	// the run holds more than one).
	stringCap int
	// outputCap caps the document, stdout and stderr the run collects,
	// together (shown text is held twice: document and stdout).
	outputCap int64
	// stop ends the heap watch; calls after the first do nothing.
	stop func()
}

// errMemoryBudget is the cause given to the run's context when the heap
// watch finds the run over its budget.
var errMemoryBudget = errors.New("memory limit exceeded")

// newBudget sets up the budget for a run of limit bytes (0: the default,
// negative: none) and starts its heap watch, which cancels the returned
// context with errMemoryBudget.
func newBudget(ctx context.Context, limit int64) (*budget, context.Context) {
	if limit == 0 {
		limit = DefaultMemoryLimit
	}
	b := &budget{limit: limit, stringCap: value.MaxString, outputCap: 1 << 62, stop: func() {}}
	if limit <= 0 {
		return b, ctx
	}
	if limit/8 < int64(b.stringCap) {
		b.stringCap = int(limit / 8)
	}
	b.outputCap = limit / 2
	ctx, cancel := context.WithCancelCause(ctx)
	stopWatch := code.WatchMemory(limit, func() { cancel(errMemoryBudget) })
	var once sync.Once
	b.stop = func() {
		once.Do(func() {
			stopWatch()
			cancel(nil)
		})
	}
	return b, ctx
}

// limitHint tells the author what to do about a budget error.
const limitHint = "build less data (process it in pieces, or write it to a file), or raise the run's memory budget (the WithMemoryLimit option, --memory-limit)"

// overBudget is the error of a run whose heap watch fired.
func (in *interp) overBudget(pos ast.Pos) *Error {
	return &Error{Kind: KindLimit, Pos: pos, Hint: limitHint, Err: errMemoryBudget,
		Message: fmt.Sprintf("memory limit exceeded: the run grew the heap by more than %s", value.FormatBytes(in.budget.limit))}
}

// stringFits fails when a string of have bytes growing by add would pass
// the run's string cap; what names the string being built.
func (in *interp) stringFits(pos ast.Pos, what string, have, add int) error {
	if add <= in.budget.stringCap-have {
		return nil
	}
	le := value.StringLimitError(what, in.budget.stringCap)
	return &Error{Kind: KindLimit, Pos: pos, Message: le.Message, Hint: le.Hint, Err: le}
}
