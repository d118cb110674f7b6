package code

import (
	"bytes"
	"sync"
)

// LimitedBuffer keeps at most limit bytes and remembers that more were
// offered, so callers can fail instead of returning truncated output.
type LimitedBuffer struct {
	mu       sync.Mutex
	buf      bytes.Buffer
	limit    int
	overflow bool
	// onOverflow runs once, when the limit is first exceeded.
	onOverflow func()
}

// NewLimitedBuffer returns a buffer keeping at most limit bytes.
func NewLimitedBuffer(limit int) *LimitedBuffer { return &LimitedBuffer{limit: limit} }

// Write keeps what fits and reports success even past the limit, so the
// writer keeps draining.
func (l *LimitedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	room := l.limit - l.buf.Len()
	if len(p) > room {
		if room > 0 {
			l.buf.Write(p[:room])
		}
		if !l.overflow {
			l.overflow = true
			if l.onOverflow != nil {
				l.onOverflow()
			}
		}
		// Report success so the writer keeps draining the pipe until the
		// process is killed.
		return len(p), nil
	}
	l.buf.Write(p)
	return len(p), nil
}

// String returns the bytes kept.
func (l *LimitedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// Overflowed reports whether more than the limit was written.
func (l *LimitedBuffer) Overflowed() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.overflow
}
