// Package fakemodel is a scripted language-model server for the
// real-agent suite: it speaks the streaming wire formats of the Anthropic
// Messages API (Claude Code), the Gemini API (Gemini CLI) and the OpenAI
// Responses API (Codex CLI), answers each conversation turn from a
// script, and records every request so a test can assert what the model
// was told.
package fakemodel

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"sort"
	"strings"
	"sync"
)

// Call is one tool call the model makes, in the host's vocabulary: the
// tool's name as the host declares it and its arguments.
type Call struct {
	Tool  string
	Input map[string]any
	// Custom marks a free-form tool call (the Responses API's
	// custom_tool_call, Codex's apply_patch): Text is its input.
	Custom bool
	Text   string
}

// Step is one model turn: the tool calls to make or, when there are
// none, the final text that ends the turn. Before, when set, runs just
// before the step is served (a test changes a file behind the agent's
// back there).
type Step struct {
	Calls  []Call
	Text   string
	Before func()
}

// Request is one request the server received.
type Request struct {
	Path string
	Body []byte
	// Main is true for a conversation turn (served from the script);
	// false for the host's side requests (titles, checks, counts).
	Main bool
	// Turn is the script index the request was answered with.
	Turn int
}

// Server is a running fake model. Its script is indexed by the number of
// model turns already in the conversation the host sends, so a resumed
// session continues where the script left off.
type Server struct {
	URL string

	mu     sync.Mutex
	script []Step
	reqs   []Request
	ran    map[int]bool
	srv    *http.Server
	ln     net.Listener
}

// Start serves script on a fresh localhost port.
func Start(script []Step) (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &Server{URL: "http://" + ln.Addr().String(), script: script, ran: map[int]bool{}, ln: ln}
	s.srv = &http.Server{Handler: s}
	go s.srv.Serve(ln)
	return s, nil
}

// Close stops the server.
func (s *Server) Close() error { return s.srv.Close() }

// SetScript replaces the script (a resumed session gets the rest).
func (s *Server) SetScript(script []Step) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.script = script
	s.ran = map[int]bool{}
}

// Requests returns a copy of every request received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

// MainTurns is the number of conversation requests served.
func (s *Server) MainTurns() int {
	n := 0
	for _, r := range s.Requests() {
		if r.Main {
			n++
		}
	}
	return n
}

// Told reports whether any conversation request carried text containing
// sub: what the host passed to the model (a tool result, a hook's
// reason). Strings are compared after JSON decoding.
func (s *Server) Told(sub string) bool {
	return strings.Contains(s.Transcript(), sub)
}

// ToldAt reports whether the conversation request answered with script
// step turn carried text containing sub (a tool result of the turn
// before it, for instance).
func (s *Server) ToldAt(turn int, sub string) bool {
	for _, r := range s.Requests() {
		if r.Main && r.Turn == turn && strings.Contains(requestText(r.Body), sub) {
			return true
		}
	}
	return false
}

// Transcript is every string in the conversation requests, decoded and
// joined by newlines, for assertions and failure messages. Tool
// declarations and system prompts are left out.
func (s *Server) Transcript() string {
	var b strings.Builder
	for _, r := range s.Requests() {
		if r.Main {
			b.WriteString(requestText(r.Body))
		}
	}
	return b.String()
}

// requestText is the strings of a request's conversation, one a line.
func requestText(body []byte) string {
	var b strings.Builder
	var v map[string]any
	if json.Unmarshal(body, &v) != nil {
		return ""
	}
	for _, k := range []string{"messages", "contents", "input"} {
		collectStrings(v[k], &b)
	}
	return b.String()
}

// LastToolResults is the text of the tool results in the last
// conversation request, for failure messages.
func (s *Server) LastToolResults() string {
	reqs := s.Requests()
	for i := len(reqs) - 1; i >= 0; i-- {
		if reqs[i].Main {
			var b strings.Builder
			var v map[string]any
			json.Unmarshal(reqs[i].Body, &v)
			for _, k := range []string{"messages", "contents", "input"} {
				collectStrings(lastItems(v[k], 2), &b)
			}
			return b.String()
		}
	}
	return ""
}

func lastItems(v any, n int) any {
	l, ok := v.([]any)
	if !ok || len(l) <= n {
		return v
	}
	return l[len(l)-n:]
}

func collectStrings(v any, b *strings.Builder) {
	switch v := v.(type) {
	case string:
		b.WriteString(v)
		b.WriteByte('\n')
	case []any:
		for _, e := range v {
			collectStrings(e, b)
		}
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			collectStrings(v[k], b)
		}
	}
}

// ServeHTTP routes a request to the wire format its path names.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	switch {
	case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/messages/count_tokens"):
		s.record(r.URL.Path, body, false, -1)
		writeJSON(w, map[string]any{"input_tokens": 100})
	case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/messages"):
		s.anthropic(w, r.URL.Path, body)
	case r.Method == http.MethodPost && strings.Contains(r.URL.Path, ":streamGenerateContent"):
		s.gemini(w, r.URL.Path, body, true)
	case r.Method == http.MethodPost && strings.Contains(r.URL.Path, ":generateContent"):
		s.gemini(w, r.URL.Path, body, false)
	case r.Method == http.MethodPost && strings.Contains(r.URL.Path, ":countTokens"):
		s.record(r.URL.Path, body, false, -1)
		writeJSON(w, map[string]any{"totalTokens": 100})
	case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/responses"):
		s.responses(w, r.URL.Path, body)
	case strings.HasSuffix(r.URL.Path, "/models"):
		s.record(r.URL.Path, body, false, -1)
		writeJSON(w, map[string]any{"data": []any{}, "models": []any{}})
	default:
		s.record(r.Method+" "+r.URL.Path, body, false, -1)
		writeJSON(w, map[string]any{})
	}
}

// step records a conversation request and returns the script step for
// turn (the number of model turns already in it), running its Before
// once. Past the script's end the model says it is done.
func (s *Server) step(path string, body []byte, turn int) Step {
	s.mu.Lock()
	s.reqs = append(s.reqs, Request{Path: path, Body: body, Main: true, Turn: turn})
	var st Step
	if turn < len(s.script) {
		st = s.script[turn]
	} else {
		st = Step{Text: "Done."}
	}
	first := !s.ran[turn]
	s.ran[turn] = true
	s.mu.Unlock()
	if st.Before != nil && first {
		st.Before()
	}
	return st
}

func (s *Server) record(path string, body []byte, main bool, turn int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reqs = append(s.reqs, Request{Path: path, Body: body, Main: main, Turn: turn})
}

// countRuns counts the runs of consecutive items for which isModel is
// true: the model turns already in a conversation.
func countRuns(items []any, isModel func(map[string]any) bool) int {
	n, in := 0, false
	for _, it := range items {
		m, _ := it.(map[string]any)
		if m != nil && isModel(m) {
			if !in {
				n++
			}
			in = true
		} else if m != nil && !isModel(m) {
			in = false
		}
	}
	return n
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

// sse writes one server-sent event (event may be empty) and flushes it.
func sse(w http.ResponseWriter, event string, data any) {
	b, _ := json.Marshal(data)
	if event != "" {
		fmt.Fprintf(w, "event: %s\n", event)
	}
	fmt.Fprintf(w, "data: %s\n\n", b)
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
