package agent

// What a tool's output brought into its session is logged with the
// tool.after record (Record.Brought): the labels, whether they became
// context-wide, and the fingerprints of the output (hashes of windows of
// its text, never the text). The log does not hold outputs, so a replay
// (Event.Replay) restores this instead of reading the output: the
// session state every later decision reads is the one the hook had.

// Brought is the labels one event brought into its session (an origin).
type Brought struct {
	Labels []string `json:"labels"`
	// Context is set when the labels became context-wide (every later
	// input carries them); Prints are otherwise the fingerprints of the
	// text that carries them.
	Context bool     `json:"context,omitempty"`
	Prints  []uint64 `json:"prints,omitempty"`
	// Why says how labels came in when no output brought them.
	Why string `json:"why,omitempty"`
	// File is the file the output came from (Origin.File): a replayed
	// denial names it as the hook's did.
	File string `json:"file,omitempty"`
}

// sessionMark is where a session's origins, context and fingerprints
// ended before an event.
type sessionMark struct{ origins, context, prints int }

func markOf(s *Session) sessionMark {
	return sessionMark{len(s.Origins), len(s.Context), len(s.Prints)}
}

// broughtSince lists the origins s gained since m, with their context
// flag and fingerprints. An origin merged into the last one (past
// MaxOrigins) is not listed.
func broughtSince(s *Session, m sessionMark) []Brought {
	if len(s.Origins) <= m.origins && len(s.Context) <= m.context {
		return nil
	}
	var out []Brought
	index := map[int]int{}
	add := func(i int) *Brought {
		if j, ok := index[i]; ok {
			return &out[j]
		}
		if i < 0 || i >= len(s.Origins) {
			return nil
		}
		o := s.Origins[i]
		index[i] = len(out)
		out = append(out, Brought{Labels: append([]string(nil), o.Labels...), Why: o.Why, File: o.File})
		return &out[len(out)-1]
	}
	for i := m.origins; i < len(s.Origins); i++ {
		add(i)
	}
	for _, i := range s.Context[min(m.context, len(s.Context)):] {
		if b := add(i); b != nil {
			b.Context = true
		}
	}
	for _, p := range s.Prints[min(m.prints, len(s.Prints)):] {
		if b := add(p.Origin); b != nil {
			b.Prints = append(b.Prints, p.Hash)
		}
	}
	return out
}

// restore adds what a logged event brought into session s, as it was
// logged, for event ev (a replay).
func (e *Engine) restore(s *Session, ev Event, brought []Brought) {
	for _, b := range brought {
		i := s.addOrigin(Origin{Seq: s.Seq, Event: ev.Kind, Tool: ev.Tool, CallID: ev.CallID, Labels: append([]string(nil), b.Labels...), Why: b.Why, File: b.File}, e.cfg.Limits)
		if b.Context {
			s.addContext(i)
		}
		for _, h := range b.Prints {
			s.appendPrint(h, i)
		}
	}
}
