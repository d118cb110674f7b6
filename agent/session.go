package agent

import (
	"context"

	"github.com/guardrun/guardrun/interp/value"
	"github.com/guardrun/guardrun/taint"
	"sort"
	"strings"
	"sync"
	"time"
)

// Origin is where labels entered a session: the event that introduced
// them (lineage for denials).
type Origin struct {
	Seq    int      `json:"seq"`
	Event  Kind     `json:"event"`
	Tool   string   `json:"tool,omitempty"`
	CallID string   `json:"call_id,omitempty"`
	Labels []string `json:"labels"`
	// File is the file a tool's output came from, as a denial names it
	// ("secret from .env (Read, event 2)"): a file tool's path, or the
	// file that labelled a command's output; relative to the workspace
	// when in it, from ~ when in the home directory. Empty when the
	// output came from no one file.
	File string `json:"file,omitempty"`
	// Why says how labels came in when no output brought them: a tool
	// output that could not be decided, a session whose state vanished.
	Why string `json:"why,omitempty"`
}

// Call is one tool call of the session (`@mx.tools.calls`).
type Call struct {
	Seq      int       `json:"seq"`
	Name     string    `json:"name"`
	Decision Outcome   `json:"decision"`
	Time     time.Time `json:"time"`
	CallID   string    `json:"call_id,omitempty"`
	// Command is a shell tool's command line; Outcome is "ok" or "error"
	// once the tool's result (tool.after) came back, empty before.
	Command string `json:"command,omitempty"`
	Outcome string `json:"outcome,omitempty"`
}

// Count is how one tool's calls of a session were decided
// (`@mx.tools.counts`): every call of the session, however many, unlike
// Calls, which keeps the latest. A retry counts as a denial.
type Count struct {
	Allow int `json:"allow"`
	Ask   int `json:"ask"`
	Deny  int `json:"deny"`
	Total int `json:"total"`
}

// add counts one decision (n = 1) or takes one back (n = -1).
func (c *Count) add(o Outcome, n int) {
	switch o {
	case Allow:
		c.Allow += n
	case Ask:
		c.Ask += n
	default:
		c.Deny += n
	}
}

// Print is one fingerprint of a confidentiality-labelled output: a hash
// of a window of its normalised text (never the text) and the origin
// whose labels it carries.
type Print struct {
	Hash   uint64 `json:"h"`
	Origin int    `json:"o"`
}

// Session is what one session's events must know of the others.
type Session struct {
	ID      string    `json:"id"`
	Created time.Time `json:"created"`
	Updated time.Time `json:"updated"`
	// Seq numbers the session's events.
	Seq int `json:"seq"`
	// Origins are the outputs and prompts that brought labels in;
	// Context indexes those whose labels are context-wide (integrity
	// labels, and everything in strict mode); Prints are the content
	// fingerprints of confidentiality-labelled outputs.
	Origins []Origin `json:"origins,omitempty"`
	Context []int    `json:"context,omitempty"`
	Prints  []Print  `json:"prints,omitempty"`
	Calls   []Call   `json:"calls,omitempty"`
	// Approvals are "allow always" answers by approval key; Retries the
	// retry count of each denied call shape.
	Approvals map[string]bool `json:"approvals,omitempty"`
	Retries   map[string]int  `json:"retries,omitempty"`
	// Reads are the SHA-256 of each file as the session last read or
	// wrote it, by absolute path (stale-write protection).
	Reads map[string]string `json:"reads,omitempty"`
	// Counts are the session's calls by tool, for rate limits.
	Counts map[string]Count `json:"counts,omitempty"`
	// Files are the confidentiality labels of files the session wrote
	// labelled data into (a copy of .env, a file a secret was echoed
	// into), comma-separated, by absolute path: a later call naming the
	// file reads those labels (a file named is a file read).
	Files map[string]string `json:"files,omitempty"`
	// Account is what the session spent: model calls and tokens by
	// model, and the context injected this turn (`@mx.session`).
	Account Account `json:"account,omitzero"`
	// Prompt is the user's latest prompt (`@mx.session.prompt`), its
	// first MaxPrompt bytes.
	Prompt string `json:"prompt,omitempty"`
	// Outputs are the latest tool outputs (`@mx.session.outputs`,
	// outputs.go).
	Outputs []Output `json:"outputs,omitempty"`

	// index maps a fingerprint to its origins, over all of Prints once
	// built (buildIndex); appendPrint keeps it so, a decode drops it.
	index map[uint64][]int
	// printsOf, on a copy taken for an update's diff (cloneForDiff),
	// stands for Prints, which it does not copy.
	printsOf *printsDigest
	// callsMx mirrors Calls as `@mx.tools.calls` objects, kept in step by
	// addCall so a long-lived session does not rebuild them per event.
	callsMx []any
	readsMx *value.Object
	// hashed are the files the current event hashed (path to SHA-256,
	// "" for none there): what it compared and recorded, logged with
	// its record (Record.Hashes) so a replay decides on the same files.
	hashed map[string]string
	// current is `@mx.tools.current` for the call being decided.
	current *value.Object
}

// Limits bound a session's state.
type Limits struct {
	// MaxPrints caps fingerprints; beyond it the labels of further
	// outputs become context-wide instead (fail closed, never dropped).
	MaxPrints int
	// MaxCalls keeps the most recent calls (Counts count them all).
	MaxCalls int
	// MaxOrigins caps origins; beyond it new labels merge into the last.
	MaxOrigins int
}

// DefaultLimits are the limits a zero Limits means.
var DefaultLimits = Limits{MaxPrints: 50000, MaxCalls: 1000, MaxOrigins: 1000}

func (l Limits) orDefault() Limits {
	if l.MaxPrints <= 0 {
		l.MaxPrints = DefaultLimits.MaxPrints
	}
	if l.MaxCalls <= 0 {
		l.MaxCalls = DefaultLimits.MaxCalls
	}
	if l.MaxOrigins <= 0 {
		l.MaxOrigins = DefaultLimits.MaxOrigins
	}
	return l
}

// contextLabels are the labels every later input of the session carries,
// with their origins.
func (s *Session) contextLabels() ([]string, []Origin) {
	var labels []string
	var origins []Origin
	for _, i := range s.Context {
		if i < 0 || i >= len(s.Origins) {
			continue
		}
		if origins == nil {
			origins = make([]Origin, 0, len(s.Context))
		}
		origins = append(origins, s.Origins[i])
		// A trust label is never context-wide: it is on a value only
		// when the value was seen in what had it.
		for _, l := range s.Origins[i].Labels {
			if !taint.IsTrust(l) {
				labels = appendNew(labels, l)
			}
		}
	}
	return labels, origins
}

// contentLabels are the labels of the fingerprinted outputs text
// contains a fragment of.
func (s *Session) contentLabels(text string) ([]string, []Origin) {
	if len(s.Prints) == 0 || len(text) < printK {
		return nil, nil
	}
	s.buildIndex()
	var labels []string
	var origins []Origin
	seen := map[int]bool{}
	for _, h := range allHashes(text) {
		for _, o := range s.index[h] {
			if seen[o] || o < 0 || o >= len(s.Origins) {
				continue
			}
			seen[o] = true
			// A fragment copied from a trusted text is not that text:
			// trust labels come from exact values only (argVar).
			ls := withoutTrust(s.Origins[o].Labels)
			if len(ls) == 0 {
				continue
			}
			origins = append(origins, s.Origins[o])
			labels = appendNew(labels, ls...)
		}
	}
	sort.Slice(origins, func(i, j int) bool { return origins[i].Seq < origins[j].Seq })
	return labels, origins
}

// addOrigin records labels brought in by an event; it returns the
// origin's index.
func (s *Session) addOrigin(o Origin, lim Limits) int {
	if len(s.Origins) >= lim.MaxOrigins {
		last := len(s.Origins) - 1
		s.Origins[last].Labels = appendNew(s.Origins[last].Labels, o.Labels...)
		return last
	}
	s.Origins = append(s.Origins, o)
	return len(s.Origins) - 1
}

// addContext makes origin i's labels context-wide.
func (s *Session) addContext(i int) {
	for _, c := range s.Context {
		if c == i {
			return
		}
	}
	s.Context = append(s.Context, i)
}

// addPrints fingerprints text for origin i; when the cap would be
// exceeded the origin becomes context-wide instead.
func (s *Session) addPrints(text string, i int, lim Limits) {
	hs := winnow(text)
	// Beyond what fingerprints can hold, a confidentiality label is kept
	// context-wide rather than lost (a short secret); a trust label is
	// never context-wide (contextLabels), and a text with no token
	// (`[]`) holds nothing.
	if len(hs) == 0 {
		if len(tokens(text)) > 0 {
			s.addContext(i)
		}
		return
	}
	if len(s.Prints)+len(hs) > lim.MaxPrints {
		s.addContext(i)
		return
	}
	for _, h := range hs {
		s.appendPrint(h, i)
	}
}

// appendPrint adds a fingerprint of origin i, and to the index of
// fingerprints when it is built: a long session's index is not rebuilt
// from all its fingerprints after every output (guardrun serve keeps a
// session between events).
func (s *Session) appendPrint(h uint64, i int) {
	s.Prints = append(s.Prints, Print{Hash: h, Origin: i})
	if s.index != nil {
		s.index[h] = append(s.index[h], i)
	}
}

func (s *Session) addCall(c Call, lim Limits) {
	if s.Counts == nil {
		s.Counts = map[string]Count{}
	}
	n := s.Counts[c.Name]
	n.add(c.Decision, 1)
	n.Total++
	s.Counts[c.Name] = n
	// The call objects are kept in step only once built: a hook process
	// that loads a session of 1,000 calls does not build them to add one.
	built := s.callsMx != nil && len(s.callsMx) == len(s.Calls)
	s.Calls = append(s.Calls, c)
	if built {
		s.callsMx = append(s.callsMx, callObject(c))
	} else {
		s.callsMx = nil
	}
	if n := len(s.Calls) - lim.MaxCalls; n > 0 {
		// Trim by a tenth at a time, by slicing: the kept calls move
		// only when a later append outgrows the array, not at every trim
		// (and a copy of the session made before this event, which
		// shares the array, still reads what it saw).
		n += lim.MaxCalls / 10
		if n > len(s.Calls) {
			n = len(s.Calls)
		}
		s.Calls = s.Calls[n:]
		if built {
			s.callsMx = s.callsMx[n:]
		}
	}
}

// redecide changes the decision of the call numbered seq (an ask the
// approver answered), in its count too.
func (s *Session) redecide(seq int, o Outcome) {
	for i := len(s.Calls) - 1; i >= 0; i-- {
		c := &s.Calls[i]
		if c.Seq != seq {
			continue
		}
		if n, ok := s.Counts[c.Name]; ok {
			n.add(c.Decision, -1)
			n.add(o, 1)
			s.Counts[c.Name] = n
		}
		c.Decision = o
		s.callsMx = nil
		return
	}
}

// countsObject is `@mx.tools.counts`: tool name → {allow, ask, deny,
// total}.
func (s *Session) countsObject() *value.Object {
	names := make([]string, 0, len(s.Counts))
	for k := range s.Counts {
		names = append(names, k)
	}
	sort.Strings(names)
	o := &value.Object{Keys: names, Values: make(map[string]any, len(names))}
	for _, k := range names {
		c := s.Counts[k]
		o.Values[k] = &value.Object{Keys: countKeys[:len(countKeys):len(countKeys)],
			Values: map[string]any{"allow": float64(c.Allow), "ask": float64(c.Ask), "deny": float64(c.Deny), "total": float64(c.Total)}}
	}
	return o
}

var countKeys = []string{"allow", "ask", "deny", "total"}

// countCalls derives counts from the calls a journal of an earlier
// version kept: the best there is of what came before.
func countCalls(calls []Call) map[string]Count {
	if len(calls) == 0 {
		return nil
	}
	m := map[string]Count{}
	for _, c := range calls {
		n := m[c.Name]
		n.add(c.Decision, 1)
		n.Total++
		m[c.Name] = n
	}
	return m
}

// setOutcome records a tool's result on its call: the call with the
// same call id, or else the latest pending call of the tool.
func (s *Session) setOutcome(ev Event) {
	outcome := "ok"
	if ev.Error != "" {
		outcome = "error"
	}
	for i := len(s.Calls) - 1; i >= 0; i-- {
		c := &s.Calls[i]
		if c.Name != ev.Tool || c.Outcome != "" || (ev.CallID != "" && c.CallID != "" && c.CallID != ev.CallID) {
			continue
		}
		c.Outcome = outcome
		s.callsMx = nil
		return
	}
}

// callsObjects returns the calls as `@mx.tools.calls` values. The slice
// is shared with later events (values are immutable), capped so that an
// append never writes into what a guard holds.
func (s *Session) callsObjects() []any {
	if len(s.callsMx) != len(s.Calls) {
		s.callsMx = make([]any, len(s.Calls))
		for i, c := range s.Calls {
			s.callsMx[i] = callObject(c)
		}
	}
	return s.callsMx[:len(s.callsMx):len(s.callsMx)]
}

// callKeys are the keys of every call object, shared (len == cap, so an
// append to one object's keys copies them).
var callKeys = []string{"name", "decision", "time", "seq", "command", "outcome"}

func callObject(c Call) *value.Object {
	// Built in one piece (the map sized once): a call is added per event.
	return &value.Object{
		Keys: callKeys[:len(callKeys):len(callKeys)],
		Values: map[string]any{"name": c.Name, "decision": c.Decision.String(),
			"time": c.Time.Format(time.RFC3339), "seq": float64(c.Seq), "command": c.Command, "outcome": c.Outcome},
	}
}

// Store keeps sessions. Update runs fn on the session's state under the
// session's lock (other updates of the same session wait, in this process
// and others sharing the store) and saves what fn left unless fn fails. A
// store that cannot read or write returns the error: the engine denies.
// fn is called during Update only: a store must not keep it.
type Store interface {
	Update(ctx context.Context, id string, fn func(*Session) error) error
}

// MemoryStore keeps sessions in memory, for tests and Go hosts that live
// as long as their sessions.
type MemoryStore struct {
	// TTL expires sessions not updated for that long (0: 24h).
	TTL       time.Duration
	mu        sync.Mutex
	sessions  map[string]*memEntry
	now       func() time.Time
	lastSweep time.Time
}

type memEntry struct {
	mu sync.Mutex
	s  *Session
	// dead is set, under mu, when the entry was swept: an update that
	// got it just before starts over with the new one.
	dead bool
}

// NewMemoryStore returns an empty in-memory store.
func NewMemoryStore() *MemoryStore {
	return &MemoryStore{sessions: map[string]*memEntry{}, now: time.Now}
}

// Update implements Store.
func (m *MemoryStore) Update(ctx context.Context, id string, fn func(*Session) error) error {
	for {
		m.mu.Lock()
		now := m.now()
		if now.Sub(m.lastSweep) > time.Minute {
			m.sweep(now)
		}
		e := m.sessions[id]
		if e == nil {
			e = &memEntry{}
			m.sessions[id] = e
		}
		m.mu.Unlock()
		e.mu.Lock()
		if e.dead {
			e.mu.Unlock()
			continue
		}
		if e.s == nil || now.Sub(e.s.Updated) > ttlOr(m.TTL) {
			e.s = &Session{ID: id, Created: now}
		}
		// fn works in place: what it recorded before failing (labels
		// seen) must not be forgotten.
		err := fn(e.s)
		e.s.Updated = now
		e.mu.Unlock()
		return err
	}
}

// sweep drops expired sessions that no update holds; m.mu is held.
func (m *MemoryStore) sweep(now time.Time) {
	m.lastSweep = now
	for id, e := range m.sessions {
		if !e.mu.TryLock() {
			continue
		}
		if e.s == nil || now.Sub(e.s.Updated) > ttlOr(m.TTL) {
			e.dead = true
			delete(m.sessions, id)
		}
		e.mu.Unlock()
	}
}

func ttlOr(d time.Duration) time.Duration {
	if d <= 0 {
		return 24 * time.Hour
	}
	return d
}

func appendNew(list []string, items ...string) []string {
	for _, it := range items {
		dup := false
		for _, l := range list {
			if l == it {
				dup = true
				break
			}
		}
		if !dup {
			list = append(list, it)
		}
	}
	return list
}

// isIntegrity reports whether a label describes where data came from
// (untrusted, influenced, injected, src:*): such labels are
// context-wide, because whatever the agent has read can steer whatever
// it does next. Every other label is a confidentiality label and travels
// with the content.
func isIntegrity(l string) bool {
	return l == "untrusted" || l == "influenced" || l == Injected || strings.HasPrefix(l, "src:")
}
