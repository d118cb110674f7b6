package serve

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/guardrun/guardrun/hook"
)

// Config configures a Server; its fields are `guardrun hook`'s flags of
// the same names.
type Config struct {
	// Policy decides with this policy only (no discovery, no trust
	// check), as `guardrun hook --policy`.
	Policy string
	// Deadline bounds one decision (default hook.DefaultDeadline): past
	// it the request is answered with a denial.
	Deadline time.Duration
	// MaxInput caps one request line in bytes (default
	// hook.DefaultMaxInput).
	MaxInput int
	// Unattended answers an ask as a denial saying what needs approval
	// (`guardrun hook --unattended`).
	Unattended bool
}

// Server decides requests with one hook.Warm: one session store, one
// decision log writer and the loaded policies, shared by every
// connection. It is safe for concurrent use.
type Server struct {
	cfg     Config
	warm    *hook.Warm
	adapter hook.Adapter

	mu     sync.Mutex
	conns  map[io.Closer]struct{}
	closed bool
	wg     sync.WaitGroup
	// busy counts requests being decided and open connections; last is
	// when busy last fell to zero (unix nanoseconds), for the idle exit.
	busy atomic.Int64
	last atomic.Int64
	// handled counts the requests decided.
	handled atomic.Uint64
}

// New opens the state directory's session store and decision log.
func New(cfg Config) (*Server, error) {
	if cfg.Deadline <= 0 {
		cfg.Deadline = hook.DefaultDeadline
	}
	if cfg.MaxInput <= 0 {
		cfg.MaxInput = hook.DefaultMaxInput
	}
	w, err := hook.NewWarm()
	if err != nil {
		return nil, err
	}
	a := hook.Adapters["generic"]
	if cfg.Unattended || hook.UnattendedFromEnv() {
		a = hook.Unattended(a)
	}
	s := &Server{cfg: cfg, warm: w, adapter: a, conns: map[io.Closer]struct{}{}}
	s.last.Store(time.Now().UnixNano())
	return s, nil
}

// Handle decides one request line and returns its reply line (ending in
// a newline). It never fails: a malformed request, an error deciding and
// a panic are each the generic protocol's denial, with the reason.
func (s *Server) Handle(line []byte) (reply []byte) {
	s.enter()
	defer s.leave()
	defer s.handled.Add(1)
	var id []byte
	defer func() {
		if r := recover(); r != nil {
			reply = frame(id, s.adapter.Fail(nil, fmt.Sprintf("internal error in the decision server: %v", r)).Stdout)
		}
	}()
	id, err := RequestID(line)
	if err != nil {
		return frame(nil, s.adapter.Fail(nil, "malformed request: "+err.Error()).Stdout)
	}
	// The line is the event, as a hook process reads it on stdin: the
	// same reading, decoding, deciding, logging and failing.
	ans := hook.Run(hook.Options{Adapter: s.adapter, Stdin: bytes.NewReader(line), Policy: s.cfg.Policy,
		Deadline: s.cfg.Deadline, MaxInput: s.cfg.MaxInput, Warm: s.warm})
	return frame(id, ans.Stdout)
}

// RequestID finds a request's "id": absent (nil), or a JSON number,
// string or null, returned as its JSON text. A line that is not one JSON
// value has no id and is no error here: it is the event's reader that
// refuses it (the reply is the protocol's denial, logged as a hook
// process logs it). An id of another kind is an error.
func RequestID(line []byte) ([]byte, error) {
	var m map[string]json.RawMessage
	if json.Unmarshal(line, &m) != nil {
		return nil, nil
	}
	id, ok := m["id"]
	if !ok {
		return nil, nil
	}
	id = bytes.TrimSpace(id)
	if len(id) == 0 {
		return nil, nil
	}
	switch c := id[0]; {
	case c == '-', c >= '0' && c <= '9':
		// Every client's JSON reads it back: a double, finite.
		if _, err := strconv.ParseFloat(string(id), 64); err != nil {
			return nil, errors.New(`"id" is a number out of range`)
		}
		return id, nil
	case c == '"', bytes.Equal(id, []byte("null")):
		return id, nil
	}
	return nil, errors.New(`"id" must be a number, a string or null`)
}

// frame makes an answer a reply line: the answer's object with the
// request's id first, on one line.
func frame(id, answer []byte) []byte {
	answer = bytes.TrimSpace(answer)
	if len(answer) < 2 || answer[0] != '{' {
		answer = []byte(`{"continue":false,"systemMessage":"guardrun: the decision server produced no answer","error":"guardrun: the decision server produced no answer"}`)
	}
	out := make([]byte, 0, len(answer)+len(id)+8)
	if id != nil {
		out = append(out, `{"id":`...)
		out = append(out, id...)
		if len(bytes.TrimSpace(answer[1:len(answer)-1])) > 0 {
			out = append(out, ',')
		}
		out = append(out, answer[1:]...)
	} else {
		out = append(out, answer...)
	}
	return append(out, '\n')
}

// ServeConn answers the requests read from r, one line each, on w, in
// order, until r ends or w fails. A reply that cannot be written (the
// client went away) loses nothing: the decision was logged before it.
func (s *Server) ServeConn(r io.Reader, w io.Writer) error {
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, err := readLine(br, s.cfg.MaxInput)
		if len(bytes.TrimSpace(line)) > 0 {
			if _, werr := w.Write(s.Handle(line)); werr != nil {
				return werr
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}

// readLine reads one line without its newline. A line over max bytes is
// cut to max+1 bytes (the event reader refuses it as too large) and the
// rest of it is skipped.
func readLine(br *bufio.Reader, max int) ([]byte, error) {
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if len(line) <= max {
			room := max + 1 - len(line)
			if len(chunk) > room {
				line = append(line, chunk[:room]...)
			} else {
				line = append(line, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if n := len(line); n > 0 && line[n-1] == '\n' {
			line = line[:n-1]
		}
		return line, err
	}
}

// Serve accepts connections on l and serves each in its own goroutine
// until l is closed (Close closes it).
func (s *Server) Serve(l net.Listener) error {
	if !s.track(l) {
		l.Close()
		return nil
	}
	for {
		c, err := l.Accept()
		if err != nil {
			s.mu.Lock()
			closed := s.closed
			s.mu.Unlock()
			if closed {
				return nil
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			return err
		}
		if !s.track(c) {
			c.Close()
			continue
		}
		s.wg.Add(1)
		s.enter()
		go func() {
			defer s.wg.Done()
			defer s.leave()
			defer s.untrack(c)
			defer c.Close()
			_ = s.ServeConn(c, c)
		}()
	}
}

func (s *Server) track(c io.Closer) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.conns[c] = struct{}{}
	return true
}

func (s *Server) untrack(c io.Closer) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.conns, c)
}

func (s *Server) enter() { s.busy.Add(1) }

func (s *Server) leave() {
	if s.busy.Add(-1) == 0 {
		s.last.Store(time.Now().UnixNano())
	}
}

// IdleFor is how long the server has had no connection and no request;
// zero while it has one.
func (s *Server) IdleFor() time.Duration {
	if s.busy.Load() > 0 {
		return 0
	}
	return time.Since(time.Unix(0, s.last.Load()))
}

// Close stops accepting, closes the connections (a request being decided
// is decided, logged and answered first when its client still reads),
// waits for them, then releases the policies and the log.
func (s *Server) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	for c := range s.conns {
		if cr, ok := c.(interface{ CloseRead() error }); ok {
			// The loop ends after the request in hand is answered.
			cr.CloseRead()
		} else {
			c.Close()
		}
	}
	s.mu.Unlock()
	s.wg.Wait()
	return s.warm.Close()
}
