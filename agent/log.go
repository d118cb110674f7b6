package agent

import (
	"io"
	"sync"
	"time"
)

// Record is one decision-log line (AGENT.md §6).
type Record struct {
	Time     time.Time      `json:"time"`
	Session  string         `json:"session"`
	Event    Kind           `json:"event"`
	Tool     string         `json:"tool,omitempty"`
	CallID   string         `json:"call_id,omitempty"`
	Decision Outcome        `json:"decision"`
	Reason   string         `json:"reason,omitempty"`
	Rule     string         `json:"rule,omitempty"`
	Guard    string         `json:"guard,omitempty"`
	Class    Class          `json:"class,omitempty"`
	Labels   []string       `json:"labels,omitempty"`
	Input    map[string]any `json:"input,omitempty"`
	// LatencyUS is the decision's latency in microseconds.
	LatencyUS  int64  `json:"latency_us"`
	PolicyHash string `json:"policy_hash"`
}

// Masked replaces a value that carries a confidentiality label in the
// log.
const Masked = "[masked]"

// decisionLog writes one JSON line per record with one Write call, so
// records of concurrent writers sharing an O_APPEND file never
// interleave.
type decisionLog struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *decisionLog) write(r *Record) error {
	if l == nil || l.w == nil {
		return nil
	}
	b := append(r.AppendJSON(make([]byte, 0, 512)), '\n')
	l.mu.Lock()
	defer l.mu.Unlock()
	_, err := l.w.Write(b)
	return err
}
