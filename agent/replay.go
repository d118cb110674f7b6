package agent

// replayLogged advances session s over a replayed event the log cannot
// have decided again (Event.Logged: its input was masked), as the hook
// did, deciding nothing: the event takes its number; a tool call is
// recorded with its logged decision (@mx.tools.calls, the counts), a
// tool's result sets the call's outcome and brings into the session what
// the log says it brought. What the hook drew from the input itself (the
// files a call wrote, labelled) is not in the log and is not rebuilt.
func (e *Engine) replayLogged(s *Session, ev Event) (Decision, Record) {
	switch ev.Kind {
	case ToolBefore:
		s.addCall(Call{Seq: s.Seq, Name: ev.Tool, Decision: *ev.Logged, Time: e.when(ev), CallID: ev.CallID}, e.cfg.Limits)
	case ToolAfter:
		s.setOutcome(ev)
		e.restore(s, ev, ev.Brought)
		if ev.Hashes != nil {
			e.recordLogged(s, ev)
		}
	}
	d := Decision{Outcome: *ev.Logged}
	return d, Record{Session: ev.Session, Event: ev.Kind, Tool: ev.Tool, CallID: ev.CallID, Cwd: ev.Cwd, Decision: *ev.Logged}
}
