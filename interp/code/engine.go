package code

import (
	"io"
	"sync"
	"sync/atomic"
	"time"
)

// Defaults used when Options leave a limit at zero.
const (
	DefaultTimeout     = 30 * time.Second
	DefaultOutputLimit = 4 << 20
	// DefaultMemoryLimit is how much a JS block may grow the heap.
	DefaultMemoryLimit int64 = 512 << 20
)

// Options configure an Engine.
type Options struct {
	// Timeout bounds one code block or command (0 = DefaultTimeout).
	Timeout time.Duration
	// OutputLimit caps the bytes one command writes to stdout, and the
	// console output one JS block captures (0 = DefaultOutputLimit).
	OutputLimit int
	// Stdout receives JS console.log/info/debug output as it happens; nil
	// discards it (the captured text still becomes the result of a block
	// that returns nothing).
	Stdout io.Writer
	// Stderr receives JS console.error/warn output and commands' stderr;
	// nil discards them.
	Stderr io.Writer
	// Dir is the working directory of commands ("" = the process's).
	Dir string
	// MemoryLimit caps, in bytes, how much one JS block may grow the Go
	// heap (0 = DefaultMemoryLimit, negative = no cap). The heap is
	// sampled every few milliseconds while the block runs; a block over
	// the cap is interrupted with an *Error, and the JS runtime is
	// replaced so its memory can be reclaimed (globals set by earlier
	// blocks are lost). The measure is process-wide, so allocations by
	// other goroutines count too.
	MemoryLimit int64
}

// Binding binds a name to a value (one of the interp/value data kinds)
// inside a code block: a JS parameter or global of the block.
type Binding struct {
	Name  string
	Value any
}

// Engine runs the code blocks of one script run. All JS blocks share one
// JSRunner (one JavaScript runtime), so globals (globalThis.counter…)
// persist across calls as they do in mlld. An Engine is safe for
// concurrent use; JS blocks run one at a time.
type Engine struct {
	opts Options
	// cap, when positive, lowers Options.Timeout (nanoseconds): a policy's
	// limits.timeout, which can arrive while blocks run in parallel.
	cap atomic.Int64

	mu sync.Mutex
	// js runs the JS blocks; made by the registered factory on the first
	// block, so shell-only runs never make one.
	js JSRunner
	// shadows are shadow-environment functions waiting to be defined in
	// the runtime (see SetShadow).
	shadows []ShadowFunc
}

// NewEngine returns an Engine; the JS runner is created on first use.
func NewEngine(opts Options) *Engine {
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.OutputLimit <= 0 {
		opts.OutputLimit = DefaultOutputLimit
	}
	if opts.MemoryLimit == 0 {
		opts.MemoryLimit = DefaultMemoryLimit
	}
	return &Engine{opts: opts}
}

// CapTimeout lowers the timeout of every later block or command to d when
// d is shorter than the current one (a policy's limits.timeout). It never
// raises it.
func (e *Engine) CapTimeout(d time.Duration) {
	for {
		cur := e.cap.Load()
		if d <= 0 || (cur > 0 && int64(d) >= cur) {
			return
		}
		if e.cap.CompareAndSwap(cur, int64(d)) {
			return
		}
	}
}

// timeout is the limit of one block or command.
func (e *Engine) timeout() time.Duration {
	if c := time.Duration(e.cap.Load()); c > 0 && c < e.opts.Timeout {
		return c
	}
	return e.opts.Timeout
}
