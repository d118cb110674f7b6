package hook

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/guardrun/guardrun"
	"github.com/guardrun/guardrun/agent"
	"github.com/guardrun/guardrun/internal/xdgdir"
)

// DefaultDeadline bounds one hook call: well under every host's hook
// timeout (Claude Code 600 s, 30 s for prompts; Gemini CLI 60 s), because
// hosts fail open when a hook times out.
const DefaultDeadline = 3 * time.Second

// Options configure one hook call.
type Options struct {
	// Adapter is the host's protocol.
	Adapter Adapter
	Stdin   io.Reader
	// Policy overrides discovery.
	Policy string
	// Deadline bounds the whole call (default DefaultDeadline).
	Deadline time.Duration
	// MaxInput caps the event (default DefaultMaxInput).
	MaxInput int
	// Delegate, when set, answers an event whose policy needs an engine
	// this program was built without (guardrun.ErrNotLinked), given the
	// event's bytes; its error is answered with a denial. Without it such
	// an event is denied.
	Delegate func(ctx context.Context, event []byte) (Answer, error)
	// Confine runs the shell calls guardrun cannot see into, once the
	// policy allowed them, under `guardrun exec` with the session's
	// profile (hosts that take a rewritten input; confine.go).
	Confine bool
	// Warm, when set, holds the session store, the decision log and the
	// loaded policies of a process that decides many events (warm.go).
	Warm *Warm
}

// StateDir is guardrun's state directory: $XDG_STATE_HOME/guardrun (or
// ~/.local/state/guardrun). Sessions live in its sessions/, the decision
// log is its decisions.jsonl.
func StateDir() (string, error) {
	dir, err := xdgdir.State()
	if err != nil {
		return "", err
	}
	return dir, nil
}

// LogPath is the decision log's path.
func LogPath() (string, error) {
	dir, err := StateDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "decisions.jsonl"), nil
}

// Run handles one hook call and returns the answer to print. It never
// fails: every error, a panic and the deadline are the protocol's denial.
func Run(o Options) Answer {
	if o.Deadline <= 0 {
		o.Deadline = DefaultDeadline
	}
	if o.MaxInput <= 0 {
		o.MaxInput = DefaultMaxInput
	}
	done := make(chan Answer, 1)
	var call *Call
	callc := make(chan *Call, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				done <- failed(o, nil, nil, fmt.Sprintf("internal error: %v", r))
			}
		}()
		presizeStack(0)
		done <- run(o, callc)
	}()
	timer := time.NewTimer(o.Deadline)
	defer timer.Stop()
	for {
		select {
		case a := <-done:
			return checked(o, call, a)
		case call = <-callc:
		case <-timer.C:
			// The engine may be stuck in a guard: answer now; the process
			// ends with the answer.
			return failed(o, call, nil, fmt.Sprintf("no decision within guardrun's deadline (%v); the call is denied", o.Deadline))
		}
	}
}

// presizeStack grows the calling goroutine's stack once, while it is
// shallow, to about what deciding an event needs: grown step by step as
// the interpreter recurses (8, 16, 32 KB…), each growth copies a deeper
// stack and walks every frame on it. Measured on the starter policy:
// ≈0.05 ms and a dozen page faults less per hook call. The frame is never
// used; i is a parameter so that the array is not optimised away.
//
//go:noinline
func presizeStack(i int) byte {
	var frame [30 << 10]byte
	return frame[i]
}

// rendered is err's text with a guardrun error in it rendered the way
// every surface renders one (guardrun.Error.RenderLine: position, message,
// the offending text and the hint), on one line for hosts that show one.
func rendered(err error) string {
	msg := err.Error()
	var ge *guardrun.Error
	if errors.As(err, &ge) && strings.HasSuffix(msg, ge.Error()) {
		return msg[:len(msg)-len(ge.Error())] + ge.RenderLine()
	}
	return msg
}

// checked enforces the output cap.
func checked(o Options, c *Call, ans Answer) Answer {
	if len(ans.Stdout) > MaxAnswer {
		return failed(o, c, nil, fmt.Sprintf("the answer is over the %d-byte output cap", MaxAnswer))
	}
	return ans
}

func run(o Options, callc chan<- *Call) Answer {
	a := o.Adapter
	// The bytes as read are kept for Delegate, which passes them on.
	var event bytes.Buffer
	raw, err := readEvent(io.TeeReader(o.Stdin, &event), o.MaxInput)
	if err != nil {
		salvaged := salvage(event.Bytes())
		return refuse(o, failed(o, stopCall(a, salvaged), salvaged, err.Error()), undecidedCall(a, salvaged), err.Error())
	}
	call, err := a.Decode(raw)
	if err != nil {
		return refuse(o, failed(o, nil, raw, err.Error()), undecidedCall(a, raw), err.Error())
	}
	callc <- call
	logPath, err := LogPath()
	if err != nil {
		return a.Fail(call, err.Error())
	}
	if call.Observed {
		// An event this version does not know, without a tool call: no
		// objection, but it is on the record.
		if err := o.appendLog(logPath, agent.Record{Time: time.Now().UTC(), Session: nonEmpty(str(raw, "session_id"), str(raw, "conversation_id")),
			Event: agent.Kind("host:" + call.Native), Decision: agent.Allow, Reason: "event not known to this guardrun: observed"}); err != nil {
			return failed(o, call, nil, err.Error())
		}
		return a.Answer(call, agent.Decision{Outcome: agent.Allow})
	}
	state, err := StateDir()
	if err != nil {
		return failed(o, call, nil, err.Error())
	}
	pol, policies, gate, err := loadPolicies(o, call, state)
	if err != nil {
		if o.Warm != nil {
			return failed(o, call, nil, rendered(err)+o.Warm.diagnose(err))
		}
		return failed(o, call, nil, rendered(err)+diagnose(err))
	}
	if o.Warm != nil {
		return decideWarm(o, call, pol, policies, gate)
	}
	if gate != nil {
		guardrun.SetParseCache(gate)
		defer setParseCache(astCache)
	} else {
		setParseCache(astCache)
	}
	store, err := agent.NewFileStore(filepath.Join(state, "sessions"))
	if err != nil {
		return failed(o, call, nil, err.Error())
	}
	logf, err := openLog(logPath)
	if err != nil {
		return failed(o, call, nil, err.Error())
	}
	defer logf.Close()
	ctx, cancel := context.WithTimeout(context.Background(), o.Deadline)
	defer cancel()
	eng, err := agent.New(ctx, agent.Config{Policies: policies, Dir: pol.Dir, Workspace: pol.Workspace, Store: store, Log: logf, Deadline: o.Deadline})
	if errors.Is(err, guardrun.ErrNotLinked) && o.Delegate != nil {
		// Refused while loading, before any decision or session change:
		// the full command decides the event from scratch.
		ans, derr := o.Delegate(ctx, event.Bytes())
		if derr != nil {
			return failed(o, call, nil, "policy: "+rendered(err)+"; handing the event to the full guardrun failed: "+derr.Error())
		}
		return ans
	}
	if err != nil {
		return failed(o, call, nil, "policy: "+rendered(err))
	}
	defer eng.Close()
	if gate != nil {
		if err := gate.Unloaded(); err != nil {
			return failed(o, call, nil, "policy: "+rendered(err))
		}
	}
	return decideCall(ctx, o, call, eng, store, pol, logPath)
}

// decideCall decides call's events with eng, in order, and answers the
// first refusal, else the first event's decision (confined when asked).
// A hook process and a Warm one decide through it alike.
func decideCall(ctx context.Context, o Options, call *Call, eng *agent.Engine, store agent.Store, pol Policies, logPath string) Answer {
	a := o.Adapter
	if o.Confine {
		if _, why := confinable(a.Name(), call, eng.Confinement()); why == "" {
			// Decided as run under the kernel floor: confine below
			// wraps it, or asks.
			call.Events[0].Confined = true
		}
	}
	var first agent.Decision
	for i, ev := range call.Events {
		d := eng.Decide(ctx, ev)
		if i == 0 {
			first = d
		}
		if ev.Kind == agent.AgentStop && d.Outcome != agent.Allow && d.Denial != nil && d.Denial.Class == agent.ClassError {
			// A policy that fails on stop must not keep the agent
			// working: refusing a stop means "continue" to every host.
			return a.Fail(call, d.Reason)
		}
		if d.Outcome != agent.Allow {
			return a.Answer(call, d)
		}
	}
	if o.Confine {
		first = confine(ctx, a.Name(), call, first, store, pol.Workspace, eng.Confinement())
		if err := logConfinement(logPath, call, first); err != nil {
			return failed(o, call, nil, err.Error())
		}
	}
	return a.Answer(call, first)
}

// refuse answers ans to an event refused before it was decided. When it
// is a tool.after (call not nil) the tool has run and the host shows its
// output whatever the answer, so the session records that it did
// (agent.Engine.Undecided) before the answer goes out. An event whose
// session id cannot be read records nothing: there is no session to
// record in.
func refuse(o Options, ans Answer, call *Call, why string) Answer {
	if call != nil {
		recordUndecided(o, call, why)
	}
	return ans
}

// astCache is the parse cache of this process (Main makes it), nil for
// none.
var astCache *ASTCache

// setParseCache makes c the process's parse cache (nil: none).
func setParseCache(c *ASTCache) {
	if c == nil {
		guardrun.SetParseCache(nil)
		return
	}
	guardrun.SetParseCache(c)
}

// policiesFor finds the policies deciding call: the --policy override as
// it is (no trust check, no gate); else the user's and the workspace's
// policies, each checked against its pin, and the Gate that admits to the
// load exactly the pinned modules. The workspace is the one the session
// was bound to at its first event (bindWorkspace), not the event's cwd.
func policiesFor(o Options, call *Call, state string) (Policies, *Gate, error) {
	if o.Policy != "" {
		pol, err := discover(Binding{}, o.Policy, nil)
		return pol, nil, err
	}
	session := ""
	if len(call.Events) > 0 {
		session = call.Events[0].Session
	}
	b, err := bindWorkspace(state, o.Adapter.Name(), session, call.Cwd)
	if err != nil {
		return Policies{}, nil, err
	}
	trust, err := DefaultTrustStore()
	if err != nil {
		return Policies{}, nil, err
	}
	pol, err := discover(b, "", trust)
	if err != nil {
		return pol, nil, err
	}
	pol.Workspace = b.Workspace
	return pol, NewGate(astCache, pol.Approved...), nil
}

// diagnose adds to a changed policy's denial whether the changed text
// compiles, so whoever edited it learns of a mistake before approving
// it: the text is parsed, never run (the parse goes through the
// process's parse cache, whose entries are verified by their source's
// hash, so a cached tree can never stand in for another text).
func diagnose(err error) string {
	var ch *ChangedError
	if !errors.As(err, &ch) {
		return ""
	}
	src, rerr := os.ReadFile(ch.File)
	if rerr != nil || filepath.Ext(ch.File) != ".guard" && filepath.Ext(ch.File) != ".mld" {
		return ""
	}
	setParseCache(astCache)
	defer guardrun.SetParseCache(nil)
	if _, cerr := guardrun.Compile(ch.File, src); cerr != nil {
		return " (the changed text does not compile either: " + cerr.Error() + ")"
	}
	return ""
}

// loadPolicies finds the policies deciding call (policiesFor) and reads
// them: an approved policy's source is the bytes its pin was checked
// against, never a second read.
func loadPolicies(o Options, call *Call, state string) (Policies, []agent.Policy, *Gate, error) {
	pol, gate, err := policiesFor(o, call, state)
	if err != nil {
		return pol, nil, nil, err
	}
	if pol.Approved == nil {
		policies, err := agent.ReadPolicies(pol.Files...)
		if err != nil {
			return pol, nil, nil, err
		}
		for i := range policies {
			policies[i].Dir = pol.Dirs[i]
		}
		return pol, policies, gate, nil
	}
	// A policy other than the user's is a workspace's, even when it is
	// the only one: it can restrict, never lift.
	user, _ := UserPolicy()
	policies := make([]agent.Policy, len(pol.Files))
	for i, f := range pol.Files {
		// The bytes hashed against the pin are the bytes loaded.
		policies[i] = agent.Policy{Name: f, Dir: pol.Dirs[i], Source: pol.Approved[i].Source, Workspace: f != user}
	}
	return pol, policies, gate, nil
}

// recordUndecided loads the policy for the tools' declarations (as run
// does: pinned, through the gate, in the session's workspace) and
// records call's tool.after events as undecided. Failing that (no
// policy, a store that cannot be written) the event is still refused.
func recordUndecided(o Options, call *Call, why string) {
	if o.Warm != nil {
		// Its load sets the process's parse cache: one load at a time.
		o.Warm.loadMu.Lock()
		defer o.Warm.loadMu.Unlock()
	}
	state, err := StateDir()
	if err != nil {
		return
	}
	pol, policies, gate, err := loadPolicies(o, call, state)
	if err != nil {
		return
	}
	if gate != nil {
		guardrun.SetParseCache(gate)
		defer setParseCache(astCache)
	}
	store, err := agent.NewFileStore(filepath.Join(state, "sessions"))
	if err != nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), o.Deadline)
	defer cancel()
	eng, err := agent.New(ctx, agent.Config{Policies: policies, Dir: pol.Dir, Workspace: pol.Workspace, Store: store, Deadline: o.Deadline})
	if err != nil {
		return
	}
	defer eng.Close()
	if gate != nil && gate.Unloaded() != nil {
		return
	}
	for _, ev := range call.Events {
		_ = eng.Undecided(ev, why)
	}
}

// LogMaxBytesEnv names the environment variable that sets the size past
// which the decision log is rotated (agent.OpenLog): a byte count,
// default agent.DefaultLogMaxBytes (10 MiB); a negative count never
// rotates.
const LogMaxBytesEnv = "GUARDRUN_LOG_MAX_BYTES"

// openLog opens the decision log for appending (agent.OpenLog: 0600, in
// a 0700 directory, rotated past its size): one write per record, so
// concurrent hooks never tear a line.
func openLog(path string) (*os.File, error) {
	var max int64
	if v := os.Getenv(LogMaxBytesEnv); v != "" {
		max, _ = strconv.ParseInt(v, 10, 64)
	}
	return agent.OpenLog(path, max)
}

func appendLog(path string, r agent.Record) error {
	f, err := openLog(path)
	if err != nil {
		return err
	}
	b := append(r.AppendJSON(nil), '\n')
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return errors.New("decision log: " + err.Error())
	}
	return nil
}

// failed is the adapter's denial of an event guardrun could not decide
// (a broken or unapproved policy, the deadline, a malformed event), on
// the decision log like every decision: on some hosts (Codex) the user
// sees only that the call was blocked, so the log is the only place the
// reason is. call is nil when the event could not be decoded; raw is
// then what could be read of it. A failure on an event that ends the
// agent's turn lets the agent stop (see the adapters' Fail): it is
// logged as allowed.
func failed(o Options, call *Call, raw map[string]any, reason string) Answer {
	r := agent.Record{Time: time.Now().UTC(), Decision: agent.Deny, Class: agent.ClassError, Reason: "guardrun could not decide: " + reason}
	switch {
	case call != nil && len(call.Events) > 0:
		ev := call.Events[0]
		r.Session, r.Event, r.Tool, r.CallID, r.Cwd = ev.Session, ev.Kind, ev.Tool, ev.CallID, ev.Cwd
		if ev.Kind == agent.AgentStop {
			r.Decision = agent.Allow
			r.Reason += " (the agent is let stop)"
		}
	case call != nil:
		r.Event = agent.Kind("host:" + call.Native)
	default:
		r.Session = nonEmpty(str(raw, "session_id"), str(raw, "conversation_id"))
		r.Event = agent.Kind("host:" + nonEmpty(str(raw, "hook_event_name"), "unreadable event"))
		r.Tool = str(raw, "tool_name")
	}
	if path, err := LogPath(); err == nil {
		// Best effort: the denial stands whether or not it is logged.
		_ = o.appendLog(path, r)
	}
	return o.Adapter.Fail(call, reason)
}

// stopCall is the call of an event refused before it was read whole
// (over the size cap: a long last message) when what could be read of
// it says it is a stop, whose refusal would keep the agent working; nil
// otherwise.
func stopCall(a Adapter, raw map[string]any) *Call {
	if raw == nil {
		return nil
	}
	strs := map[string]any{}
	for k, v := range raw {
		if s, ok := v.(string); ok {
			strs[k] = s
		}
	}
	c, err := a.Decode(strs)
	if err != nil || len(c.Events) == 0 || c.Events[0].Kind != agent.AgentStop {
		return nil
	}
	return c
}
