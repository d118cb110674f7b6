package agent

import (
	"unicode/utf8"

	"github.com/guardrun/guardrun/interp/value"
	"github.com/guardrun/guardrun/taint"
)

// MaxOutputs is how many of a session's latest tool outputs its guards
// read (`@mx.session.outputs`), and MaxOutputText how many bytes of each
// output's text are kept: the session keeps them between events (in its
// journal, on disk, for a hook), and a guard that needs more reads
// `.mx.seenIn` and labels, which cover every output.
const (
	MaxOutputs    = 8
	MaxOutputText = 4 << 10
)

// redactedOutput stands for the text of an output that carries a
// confidential label: the session keeps its labels, not its text.
const redactedOutput = "[REDACTED]"

// Output is one of the session's latest tool outputs as its guards read
// it: the tool, the event's number, the text as the agent got it (cut to
// MaxOutputText bytes) and the labels the output brought into the
// session, which a guard reading the text gets with it, so that reading
// an earlier output cannot launder it.
type Output struct {
	Seq    int      `json:"seq"`
	Tool   string   `json:"tool"`
	Text   string   `json:"text"`
	Labels []string `json:"labels,omitempty"`
}

// keepOutput records what a tool.after event left in the agent's context
// (text, the output's text) as the latest of s.Outputs. labels are the output's labels (dataLabels,
// with `secret` when credentials were found or a guard refused it). An
// output whose named fields carry labels of their own (t.fields) is, as
// a whole, as third-party as its fields and not vouched for: it takes
// their labels and loses its trust labels. The text of an output that
// carries secret, sensitive or pii is not kept.
func (s *Session) keepOutput(ev Event, t toolDef, text string, labels []string) {
	if len(t.fields) > 0 {
		var kept []string
		for _, l := range labels {
			if !taint.IsTrust(l) {
				kept = append(kept, l)
			}
		}
		for _, fl := range t.fields {
			kept = appendNew(kept, fl...)
		}
		labels = kept
	}
	o := Output{Seq: s.Seq, Tool: ev.Tool, Text: clipOutput(text), Labels: append([]string(nil), labels...)}
	if confidentialOutput(labels) {
		o.Text = redactedOutput
	}
	s.Outputs = append(s.Outputs, o)
	if n := len(s.Outputs) - MaxOutputs; n > 0 {
		s.Outputs = s.Outputs[n:]
	}
}

// confidentialOutput reports whether an output's labels say its text
// must not be kept: the labels every error and explanation masks.
func confidentialOutput(labels []string) bool {
	for _, l := range labels {
		if l == "secret" || l == "sensitive" || l == "pii" {
			return true
		}
	}
	return false
}

// clipOutput cuts s to MaxOutputText bytes at a character boundary.
func clipOutput(s string) string {
	if len(s) <= MaxOutputText {
		return s
	}
	end := MaxOutputText - len("…")
	for end > 0 && !utf8.RuneStart(s[end]) {
		end--
	}
	return s[:end] + "…"
}

// sessionValue is `@mx.session` (sessionObject) with `outputs`: a list
// of `{ seq, tool, text }`, oldest first, each text carrying its
// output's labels (and so each element, and the list their union).
func (e *Engine) sessionValue(s *Session, ev Event) *value.Variable {
	o := e.sessionObject(s, ev)
	r := value.NewRecord()
	for _, k := range o.Keys {
		r.SetData(k, o.Values[k])
	}
	items := make([]*value.Variable, len(s.Outputs))
	for i, out := range s.Outputs {
		it := value.NewRecord()
		it.SetData("seq", float64(out.Seq))
		it.SetData("tool", out.Tool)
		it.Set("text", &value.Variable{Data: out.Text, Security: descriptor(out.Labels), Source: "tool:" + out.Tool})
		items[i] = it.Variable()
	}
	r.Set("outputs", value.ListOf(items))
	return r.Variable()
}

func outputEqual(a, b *Output) bool {
	if a.Seq != b.Seq || a.Tool != b.Tool || a.Text != b.Text || len(a.Labels) != len(b.Labels) {
		return false
	}
	for i := range a.Labels {
		if a.Labels[i] != b.Labels[i] {
			return false
		}
	}
	return true
}

func outputsEqual(a, b []Output) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !outputEqual(&a[i], &b[i]) {
			return false
		}
	}
	return true
}
