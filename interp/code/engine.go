package code

import (
	"io"
	"sync"
	"time"

	"github.com/dop251/goja"
)

// Defaults used when Options leave a limit at zero.
const (
	DefaultTimeout     = 30 * time.Second
	DefaultOutputLimit = 4 << 20
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
}

// Binding binds a name to a value (one of the interp/value data kinds)
// inside a code block: a JS parameter or global of the block.
type Binding struct {
	Name  string
	Value any
}

// Engine runs the code blocks of one script run. All JS blocks share one
// goja runtime, so globals (globalThis.counter…) persist across calls as
// they do in mlld. An Engine is safe for concurrent use; JS blocks run one
// at a time.
type Engine struct {
	opts Options

	mu sync.Mutex
	rt *goja.Runtime
	// console collects console.log output of the block being run.
	console *limitedBuffer
	// timers are setTimeout callbacks waiting to run; they run in order
	// once the block's synchronous part and its promise jobs are done.
	timers    []*timer
	nextTimer int64
}

// NewEngine returns an Engine; the JS runtime is created on first use.
func NewEngine(opts Options) *Engine {
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.OutputLimit <= 0 {
		opts.OutputLimit = DefaultOutputLimit
	}
	return &Engine{opts: opts}
}

// Options returns the effective options (defaults filled in).
func (e *Engine) Options() Options { return e.opts }
