package agent

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/guardrun/guardrun"
	"github.com/guardrun/guardrun/ast"
	"github.com/guardrun/guardrun/internal/credscan"
	"github.com/guardrun/guardrun/interp/value"
	"github.com/guardrun/guardrun/taint"
)

// Policy is one policy script: its name (a file name; `.guard` and
// `.mld` are strict mode) and source.
type Policy struct {
	Name   string
	Source []byte
	// Dir, when set, is this policy's base directory (its imports, file
	// loads and commands), in place of Config.Dir: each policy is
	// confined to its own tree, never to a directory that holds both.
	Dir string
	// Workspace marks a repository's policy: it can restrict, never
	// lift, even when it is the only one, so it may not let the agent
	// write what guardrun protects (protected.except).
	Workspace bool
}

// baseDir is the policy's base directory: its Dir, else the engine's,
// else the directory of a policy named by a file path (ReadPolicies). A
// policy with none of them has no base directory: its file loads,
// imports and commands fail instead of using the working directory.
func (p Policy) baseDir(engineDir string) string {
	if d := cmp.Or(p.Dir, engineDir); d != "" {
		return d
	}
	if d := filepath.Dir(p.Name); d != "." {
		return d
	}
	return ""
}

// ReadPolicies reads policy files, in the order given.
func ReadPolicies(paths ...string) ([]Policy, error) {
	out := make([]Policy, 0, len(paths))
	for _, p := range paths {
		src, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("policy %s: %w", p, err)
		}
		out = append(out, Policy{Name: p, Source: src})
	}
	return out, nil
}

// Config configures an Engine.
type Config struct {
	// Policies apply in order (the user's first, then the workspace's);
	// a later policy can restrict, never lift, what an earlier denies.
	Policies []Policy
	// Dir is the base directory of the policies' imports and commands.
	Dir string
	// Workspace is the project directory the workspace builtins
	// (@readWorkspaceFile, @pathMatches) and stale-write hashing are
	// confined to. Empty derives it from each event's Cwd: the enclosing
	// repository root (the nearest directory holding .git), else Cwd.
	// Without either they use the policy's base directory.
	Workspace string
	// Store keeps sessions; nil uses a file store in DefaultStateDir.
	Store Store
	// Log receives the decision log (JSONL), nil for none.
	Log io.Writer
	// Approver answers asks; nil leaves an ask to the host (Outcome Ask).
	Approver Approver
	// ApprovalTimeout bounds one ask (default DefaultApprovalTimeout).
	ApprovalTimeout time.Duration
	// UnknownTools is what a tool call (tool.before) of a tool that no
	// policy's tool collection declares gets: DecideUnknownTools (the
	// default) or DenyUnknownTools.
	UnknownTools UnknownTools
	// AnswerTTL is how long the engine keeps a human's answer to the ask
	// of a tool call, to answer an identical ask (same session, tool,
	// input as the host will run it, asking guard and question) without
	// asking again: a denial is reused by every identical call, an
	// "allow once" only by the same call (the same non-empty
	// Event.CallID, sent again). Default DefaultAnswerTTL; negative
	// keeps none. Answers are kept in the engine's memory, not the
	// store: another engine asks again. "Allow always" is kept in the
	// session, for its life, for the tool and question whatever the
	// input.
	AnswerTTL time.Duration
	// Deadline bounds one decision (default 5s): it must end before the
	// host's hook timeout, because hosts fail open when a hook times out.
	Deadline time.Duration
	// Strict makes every confidentiality label context-wide (as the
	// policy rule session-taint-strict does).
	Strict bool
	Limits Limits
	// MaxEventBytes caps an event's JSON size (default 1 MiB).
	MaxEventBytes int
	// MaxRetries is the retries a call shape gets (default 3).
	MaxRetries int
	// MaxTurnContext caps the context injected into the agent per turn
	// (bytes; default DefaultTurnContext, a policy's `@contextBudget` may
	// lower it): one event's injections are batched into one message
	// with their sources, and what does not fit is dropped with a note.
	MaxTurnContext int
	// Hooks are Go and command hooks on the chain beside the guard
	// scripts, which run at ScriptPriority (hooks with a lower priority
	// run before them).
	Hooks          []Hook
	ScriptPriority int
	// Now is the clock (tests).
	Now func() time.Time
	// Cover, when set, is called with the position of every guard the
	// policies evaluate and every when arm they take (see
	// guardrun.WithCoverage); `guardrun test --coverage` counts agent
	// event tests with it.
	Cover func(ast.Pos)
	// Functions are Go functions the policies' guards and helper exes may
	// call as @name(args) (guardrun.WithFunctions): a lookup in the
	// embedder's own systems, say. Each call is an operation the
	// policies' other guards see; an error or panic in one makes the
	// guard that called it fail, so the event is denied.
	Functions []guardrun.Function
}

// UnknownTools is what the engine does with a call of a tool that no
// policy's tool collection declares (no key, exact or glob, matches its
// name).
type UnknownTools int

const (
	// DecideUnknownTools, the default, decides the call like any other,
	// as a call of a tool without labels: guards on its name, on op:exe
	// and on the labels its data carries see it, but no rule keyed on
	// the tool's labels (capabilities, fs:/net: risk classes) does, so
	// most policies allow it.
	DecideUnknownTools UnknownTools = iota
	// DenyUnknownTools denies the call (class policy, rule
	// "unknown-tools", not retryable), naming the tool and how to
	// declare it. A tool declared with no labels (`{ T: { labels: [] }
	// }`) is known.
	DenyUnknownTools
)

// Engine decides agent events. It is safe for concurrent use.
type Engine struct {
	cfg    Config
	layers []*layer
	hash   string
	strict bool
	log    *decisionLog
	now    func() time.Time
	hooks  []*Hook
	// ws caches workspaceOf by working directory.
	wsMu sync.Mutex
	ws   map[string]string
	// protected caches the protected path set of each workspace
	// (protect.ForAgent stats and resolves its roots: not per call).
	protected sync.Map
	// answers are the humans' recent answers to asks (AnswerTTL).
	answers answers
	// closeMu is held (read) by every decision while it uses the
	// policies, and by Close (write) to release them; closed is set
	// once they are.
	closeMu sync.RWMutex
	closed  bool
	// protectedExcept are the protected roots and guardrun commands the
	// user's policy lets the agent write or run (protected.except).
	protectedExcept []string
	// confinement is what the policies chose for confined shell
	// commands (@confine, confine.go).
	confinement Confinement
	// decidings keeps Decide's state between decisions (deciding).
	decidings sync.Pool
}

// layer is one loaded policy.
type layer struct {
	name  string
	dir   string
	m     *guardrun.Machine
	tools []toolDef
	// budget is the policy's price table and context budget.
	budget budget
}

// toolDef is one key of a tool collection.
type toolDef struct {
	pattern string
	labels  []string
	returns []string
	// fields are the labels of the values in named output fields
	// (fields.go).
	fields map[string][]string
	// declared is false for the stand-in of a tool no key matches.
	declared bool
	// restricting: the declaration is a workspace (restricting) layer's
	// only: it may add labels, never change what the engine takes the
	// tool to read.
	restricting bool
}

// New loads the policies once (each top level runs once) into an engine.
// A policy that does not compile or load is an error with its position.
func New(ctx context.Context, cfg Config) (*Engine, error) {
	if len(cfg.Policies) == 0 {
		return nil, errors.New("agent: no policy given")
	}
	e := &Engine{cfg: cfg, now: cfg.Now, strict: cfg.Strict}
	e.decidings.New = e.newDeciding
	if e.now == nil {
		e.now = time.Now
	}
	if cfg.Store == nil {
		dir, err := DefaultStateDir()
		if err != nil {
			return nil, err
		}
		fs, err := NewFileStore(dir)
		if err != nil {
			return nil, err
		}
		e.cfg.Store = fs
	}
	if e.cfg.Limits == (Limits{}) {
		e.cfg.Limits = DefaultLimits
	}
	e.cfg.Limits = e.cfg.Limits.orDefault()
	if e.cfg.MaxEventBytes <= 0 {
		e.cfg.MaxEventBytes = 1 << 20
	}
	if e.cfg.MaxRetries <= 0 {
		e.cfg.MaxRetries = guardrun.MaxTries
	}
	if e.cfg.Deadline <= 0 {
		e.cfg.Deadline = 5 * time.Second
	}
	if cfg.Log != nil {
		e.log = &decisionLog{w: cfg.Log}
	}
	for i := range cfg.Hooks {
		h := cfg.Hooks[i]
		if err := h.prepare(); err != nil {
			return nil, err
		}
		e.hooks = append(e.hooks, &h)
	}
	sortHooks(e.hooks)
	h := sha256.New()
	for i, p := range cfg.Policies {
		var copts []guardrun.CompileOption
		if len(cfg.Functions) > 0 {
			copts = append(copts, guardrun.WithFunctions(cfg.Functions...))
		}
		prg, err := guardrun.Compile(p.Name, p.Source, copts...)
		if err != nil {
			return nil, err
		}
		opts := []guardrun.RunOption{}
		dir := p.baseDir(cfg.Dir)
		if dir != "" {
			opts = append(opts, guardrun.WithDir(dir))
		}
		if cfg.Cover != nil {
			opts = append(opts, guardrun.WithCoverage(cfg.Cover))
		}
		m, err := prg.Load(ctx, opts...)
		if err != nil {
			return nil, err
		}
		l := &layer{name: p.Name, dir: cmp.Or(p.Dir, cfg.Dir), m: m}
		if l.budget, err = readBudget(m.Var); err != nil {
			m.Close()
			return nil, fmt.Errorf("policy %s: %w", p.Name, err)
		}
		c, err := readConfine(m.Var, p.Workspace)
		if err != nil {
			m.Close()
			e.Close()
			return nil, fmt.Errorf("policy %s: %w", p.Name, err)
		}
		e.confinement = e.confinement.merge(c)
		for _, tc := range m.Tools() {
			for _, k := range tc.Value.Keys {
				t, _ := tc.Value.Values[k].(*value.Object)
				l.tools = append(l.tools, toolDef{pattern: k, labels: strs(t, "labels"), returns: strs(t, "returns"), fields: fieldLabels(t), declared: true})
			}
		}
		if m.HasPolicyRule("session-taint-strict") {
			e.strict = true
		}
		ex, err := protectedExcepts(i, p, m)
		if err != nil {
			m.Close()
			e.Close()
			return nil, err
		}
		e.protectedExcept = append(e.protectedExcept, ex...)
		e.layers = append(e.layers, l)
		if err := checkPolicy(p.Name, prg, e.toolPatterns()); err != nil {
			e.Close()
			return nil, err
		}
		fmt.Fprintf(h, "%s\x00%d\x00", p.Name, len(p.Source))
		h.Write(p.Source)
	}
	e.hash = hex.EncodeToString(h.Sum(nil))[:16]
	return e, nil
}

// fieldLabels reads a tool's `fields`: label lists by output field.
func fieldLabels(t *value.Object) map[string][]string {
	f, _ := t.Values["fields"].(*value.Object)
	if f == nil || len(f.Keys) == 0 {
		return nil
	}
	out := make(map[string][]string, len(f.Keys))
	for _, k := range f.Keys {
		out[k] = strs(f, k)
	}
	return out
}

func strs(o *value.Object, key string) []string {
	if o == nil {
		return nil
	}
	arr, _ := o.Values[key].([]any)
	out := make([]string, 0, len(arr))
	for _, x := range arr {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// ErrClosed is the reason of every decision of an Engine after Close.
var ErrClosed = errors.New("agent: the engine is closed: its policies were released, so it decides nothing (every event is denied)")

// PolicyHash identifies the loaded policies (their names and content).
func (e *Engine) PolicyHash() string { return e.hash }

// Close releases the policies' resources: each policy's interpreter
// state, its open base and state directories and its memory budget. It
// waits for the decisions using the policies to finish (an approval
// being asked is not waited for: it no longer uses them), and is safe to
// call more than once and concurrently with Decide. It does not close
// what the Config handed in: the Store, the Log writer and the hooks are
// the caller's.
//
// After Close, Decide (and Invoke) decide nothing: every event is denied
// with the reason ErrClosed, class ClassError, and logged as such; an
// Invoke does not run the tool.
func (e *Engine) Close() {
	e.closeMu.Lock()
	defer e.closeMu.Unlock()
	if e.closed {
		return
	}
	e.closed = true
	for _, l := range e.layers {
		l.m.Close()
	}
}

// tool resolves a tool's declaration: the first matching key of the
// first policy that declares one wins; an undeclared tool has no labels.
func (e *Engine) tool(name string) toolDef {
	for i, l := range e.layers {
		for _, t := range l.tools {
			if t.pattern == name || globMatch(t.pattern, name) {
				t.restricting = i > 0
				return t
			}
		}
	}
	return toolDef{pattern: name}
}

// globMatch matches tool names against `mcp__*` and `{Bash,run_shell}`
// patterns (doublestar, as every glob of guardrun); a malformed pattern
// matches nothing.
func globMatch(pattern, name string) bool {
	ok, err := doublestar.Match(pattern, name)
	return err == nil && ok
}

// Decide decides one event. It never fails: an error of any kind is a
// denial whose reason says what went wrong (fail closed), and so is every
// event after Close (ErrClosed).
func (e *Engine) Decide(ctx context.Context, ev Event) Decision {
	start := e.now()
	if ctx == nil {
		ctx = context.Background()
	}
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, e.cfg.Deadline)
	defer cancel()
	st := e.decidings.Get().(*deciding)
	st.ctx, st.ev = ctx, ev
	defer st.release()
	var d Decision
	func() {
		defer func() {
			if r := recover(); r != nil {
				d = failed(fmt.Sprintf("internal error while deciding: %v", r))
			}
		}()
		e.closeMu.RLock()
		defer e.closeMu.RUnlock()
		if e.closed {
			d = failed(ErrClosed.Error())
			return
		}
		if err := e.validate(ev); err != nil {
			d = failed(err.Error())
			return
		}
		if err := e.cfg.Store.Update(ctx, ev.Session, st.update); err != nil {
			d = failed(err.Error())
		} else {
			d = st.d
		}
	}()
	if !st.decided && ev.Kind == ToolAfter {
		// The tool ran and the host has shown its output: what it
		// brought in is recorded even though it was not decided.
		_ = e.Undecided(ev, d.Reason)
	}
	if d.Outcome == Allow && ctx.Err() != nil {
		d = failed("the decision missed its deadline: " + ctx.Err().Error())
	}
	if d.pending != nil {
		// askApprover keeps its decision's address: a copy on the heap
		// for this path alone keeps d itself on the stack of every other
		// decision.
		asked := d
		e.askApprover(parent, ev, &asked)
		d = asked
	}
	d.PolicyHash = e.hash
	d.Latency = e.now().Sub(start)
	e.logDecision(ev, &d, st.rec)
	return d
}

// deciding is one Decide's state, handed to the store's update: it is
// kept in the engine's pool with the update function bound to it, so that
// a decision allocates neither (decisions of many sessions at once make
// garbage collection the cost to save).
type deciding struct {
	e   *Engine
	ctx context.Context
	ev  Event
	// d is the decision, rec what the log records of it, decided whether
	// the update ran.
	d       Decision
	rec     Record
	decided bool
	update  func(*Session) error
}

func (e *Engine) newDeciding() any {
	st := &deciding{e: e}
	st.update = func(s *Session) error {
		st.d, st.rec = st.e.decideIn(st.ctx, s, st.ev)
		st.decided = true
		return nil
	}
	return st
}

// release gives st back to the pool, holding nothing of the decision.
func (st *deciding) release() {
	e, update := st.e, st.update
	*st = deciding{e: e, update: update}
	e.decidings.Put(st)
}

// pendingAsk is an ask the approver must answer once the session is
// released.
type pendingAsk struct {
	key string
	seq int
	req Request
}

// askApprover asks the human (under ApprovalTimeout, not the decision's
// deadline), or takes the answer an identical ask got (AnswerTTL), then
// records the answer in the session: an "allow always" and the call's
// final decision. A store that fails then denies.
func (e *Engine) askApprover(ctx context.Context, ev Event, d *Decision) {
	p := d.pending
	d.pending = nil
	if d.Input != nil {
		// The human is asked about the call the host will run.
		p.req.Input = d.Input
	}
	ans, reply, why, reused := e.answer(ctx, ev, p.req)
	d.Approval = &Approval{Question: p.req.Question, Answer: reply}
	if reused {
		d.Approval.Reused = ReusedEarlier
	}
	switch {
	case ans == AllowAlways || ans == AllowOnce:
		d.Outcome, d.Reason, d.Approved = Allow, "", string(reply)
		if reused {
			d.Approved = "cached"
		}
	default:
		d.Outcome = Deny
		d.Reason = "not approved (" + p.req.Question + "): " + why
		d.Denial = d.refusedAsk()
	}
	// The answer is recorded even when the caller's context has ended
	// (a refusal for that reason included), within the deadline.
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), e.cfg.Deadline)
	defer cancel()
	err := e.cfg.Store.Update(sctx, ev.Session, func(s *Session) error {
		if ans == AllowAlways {
			if s.Approvals == nil {
				s.Approvals = map[string]bool{}
			}
			s.Approvals[p.key] = true
		}
		s.redecide(p.seq, d.Outcome)
		return nil
	})
	if err != nil {
		// The human was asked all the same: the log says what they
		// answered.
		ap := d.Approval
		*d = failed(err.Error())
		d.Approval = ap
	}
}

// answer is the human's answer to an ask: one an identical ask of a tool
// call got (reused), else the approver's. An identical ask being
// answered now is waited for rather than put to the human twice.
func (e *Engine) answer(ctx context.Context, ev Event, req Request) (ans Answer, reply Reply, why string, reused bool) {
	ttl := e.cfg.AnswerTTL
	if ttl == 0 {
		ttl = DefaultAnswerTTL
	}
	if ev.Kind != ToolBefore || ttl < 0 {
		ans, reply, why = approve(ctx, e.cfg.Approver, e.cfg.ApprovalTimeout, req)
		return ans, reply, why, false
	}
	key := askKey(ev.Session, ev.Tool, req.Input, req.Guard, req.Question)
	ans, reused, err := e.answers.settle(ctx, key, ev.CallID, e.now, ttl)
	switch {
	case err != nil:
		return DenyIt, ReplyCanceled, "the caller gave up before the approver answered: " + err.Error(), false
	case reused:
		switch ans {
		case AllowOnce:
			return ans, ReplyOnce, "", true
		case AllowAlways:
			return ans, ReplyAlways, "", true
		}
		return DenyIt, ReplyDenied, "the user denied the same call earlier (an answer is kept " + ttl.String() + ")", true
	}
	got := false
	defer func() { e.answers.done(key, ev.CallID, ans, got, e.now(), ttl) }()
	ans, reply, why = approve(ctx, e.cfg.Approver, e.cfg.ApprovalTimeout, req)
	got = reply == ReplyOnce || reply == ReplyAlways || reply == ReplyDenied
	return ans, reply, why, false
}

// refusedAsk is the denial of an ask that was not approved: the ask's
// guard, rule, policy, labels and lineage, the decision's reason.
func (d *Decision) refusedAsk() *Denial {
	dn := &Denial{Denial: guardrun.Denial{Class: ClassApproval}}
	if d.asked != nil {
		c := *d.asked
		dn = &c
	}
	dn.Action, dn.Reason, dn.Retryable = Deny, d.Reason, false
	return dn
}

// Undecided records in ev's session what a tool.after event that could
// not be decided (too large, malformed, past the deadline, an error)
// brought in: the host ran the tool and shows its output whatever the
// hook answers (Claude Code's PostToolUse comes after the tool; Cursor's
// after-events are observe-only), so the output is in the agent's context
// though no guard saw it. Its labels are assumed, context-wide: the
// tool's declared returns and source, and for tools that read files or
// run commands (fs:r, cmd) `secret`; the origin's why is the reason. An
// event of another kind, or without a session id, records nothing (there
// is no session to record in). The error is the store's.
func (e *Engine) Undecided(ev Event, why string) error {
	if ev.Kind != ToolAfter || ev.Session == "" {
		return nil
	}
	t := e.tool(ev.Tool)
	labels := appendNew(append([]string(nil), t.returns...), srcFor(t, ev.Tool))
	if contains(t.labels, "fs:r") || contains(t.labels, "cmd") {
		labels = appendNew(labels, "secret")
	}
	ctx, cancel := context.WithTimeout(context.Background(), e.cfg.Deadline)
	defer cancel()
	return e.cfg.Store.Update(ctx, ev.Session, func(s *Session) error {
		s.Seq++
		s.setOutcome(ev)
		i := s.addOrigin(Origin{Seq: s.Seq, Event: ev.Kind, Tool: ev.Tool, CallID: ev.CallID, Labels: labels,
			Why: "output not decided: " + why}, e.cfg.Limits)
		s.addContext(i)
		return nil
	})
}

// failed is the denial of an event the engine could not decide.
func failed(reason string) Decision {
	return Decision{Outcome: Deny, Reason: reason, Denial: &Denial{Denial: guardrun.Denial{Action: Deny, Class: ClassError, Reason: reason}}}
}

func (e *Engine) validate(ev Event) error {
	if ev.Session == "" {
		return errors.New("malformed event: no session id")
	}
	if !ev.Kind.known() {
		return fmt.Errorf("malformed event: unknown event kind %q", ev.Kind)
	}
	if (ev.Kind == ToolBefore || ev.Kind == ToolAfter) && ev.Tool == "" {
		return fmt.Errorf("malformed event: %s without a tool name", ev.Kind)
	}
	n := len(ev.Session) + len(ev.Tool) + len(ev.CallID) + len(ev.Text) + len(ev.Source) + len(ev.Error) + len(ev.Cwd)
	n += sizeOf(ev.Input, e.cfg.MaxEventBytes) + sizeOf(ev.Output, e.cfg.MaxEventBytes)
	if n > e.cfg.MaxEventBytes {
		return fmt.Errorf("event too large: over the %d-byte limit", e.cfg.MaxEventBytes)
	}
	return nil
}

// sizeOf estimates the encoded size of a JSON-like value from below (its
// strings and keys), stopping once past max; a value of another type is
// measured by encoding it, and one that cannot be encoded counts as too
// large (fail closed).
func sizeOf(v any, max int) int {
	switch t := v.(type) {
	case nil, bool, float64, int, int64, json.Number:
		return 8
	case string:
		return len(t)
	case []any:
		n := 2
		for _, x := range t {
			if n += sizeOf(x, max) + 1; n > max {
				return n
			}
		}
		return n
	case map[string]any:
		n := 2
		for k, x := range t {
			if n += len(k) + sizeOf(x, max) + 4; n > max {
				return n
			}
		}
		return n
	}
	b, err := json.Marshal(v)
	if err != nil {
		return max + 1
	}
	return len(b)
}

// verdict is the combined verdict of the policy chain.
type verdict struct {
	guardrun.Verdict
	policy string
	// rewrittenBy names the restricting (non-first) policy that rewrote
	// the call, "" when none did.
	rewrittenBy string
	// retryable is a hook's Block that lets the agent change the call
	// and try again (HookResult.Retryable).
	retryable bool
}

func rankOf(a guardrun.Action) int {
	switch a {
	case guardrun.Deny:
		return 3
	case guardrun.Retry:
		return 2
	case guardrun.Ask:
		return 1
	}
	return 0
}

// run asks each policy in order, the input as the earlier ones left it.
// The strongest verdict wins (deny > retry > ask > allow); a deny ends
// the chain.
//
// The first policy is the user's; every later one (a workspace's) can
// restrict, never lift (AGENT.md): its label changes only add labels
// (a privileged removeLabels there is undone), and when it rewrites the
// input, the earlier policies decide the rewritten call again, so a
// rewrite cannot turn a call they allowed into one they deny. Such a
// rewrite is reported in verdict.rewrittenBy: the host is asked, never
// told the call is allowed.
func (e *Engine) run(ctx context.Context, opFor func([]*value.Variable) *guardrun.OperationContext, inputs []*value.Variable, output *value.Variable, try int, tools func() *value.Object, session func() *value.Variable, ws string) (verdict, []*value.Variable, *value.Variable) {
	var best verdict
	var notes []guardrun.Note
	var warnings []string
	rewritten := false
	consider := func(v guardrun.Verdict, name string) {
		notes = append(notes, v.Notes...)
		warnings = append(warnings, v.Warnings...)
		if rankOf(v.Action) > rankOf(best.Action) || best.policy == "" && v.Action != guardrun.Allow {
			rb := best.rewrittenBy
			best = verdict{Verdict: v, policy: name, rewrittenBy: rb}
		}
	}
	op := opFor(inputs)
	for i, l := range e.layers {
		v := l.decide(ctx, guardrun.Operation{Op: op, Inputs: inputs, Try: try, Tools: tools, Session: session, Workspace: ws}, output)
		consider(v, l.name)
		if v.Action == guardrun.Deny {
			break
		}
		if v.Inputs != nil {
			next := labelOnly(inputs, v.Inputs)
			if i > 0 {
				next = keepLabels(next, inputs)
				if !sameData(next, inputs) {
					// A restricting policy rewrote the call: the earlier
					// policies decide the new call as they would have.
					op = opFor(next)
					for _, prev := range e.layers[:i] {
						pv := prev.decide(ctx, guardrun.Operation{Op: op, Inputs: next, Try: try, Tools: tools, Session: session, Workspace: ws}, output)
						if pv.Inputs != nil && !sameData(labelOnly(next, pv.Inputs), next) {
							pv.Action, pv.Class = guardrun.Deny, guardrun.ClassError
							pv.Reason = "policy " + prev.name + " rewrote the call policy " + l.name + " rewrote: the rewrites do not settle"
						}
						consider(pv, prev.name)
						if pv.Action == guardrun.Deny {
							break
						}
					}
					best.rewrittenBy = l.name
					if best.Action == guardrun.Deny {
						break
					}
				}
			}
			inputs, rewritten = next, true
		}
		if output != nil && v.Output != nil {
			if i > 0 {
				c := *v.Output
				c.Security = c.Security.Merge(output.Security)
				v.Output = &c
			}
			output = v.Output
		}
	}
	best.Notes, best.Warnings = notes, warnings
	if !rewritten {
		inputs = nil
	}
	return best, inputs, output
}

// decide runs one policy's guards on an operation (After when output is
// set). Decisions of different sessions run at once: each runs in its own
// evaluation of the layer's prepared program.
func (l *layer) decide(ctx context.Context, o guardrun.Operation, output *value.Variable) guardrun.Verdict {
	if output == nil {
		return l.m.Before(ctx, o)
	}
	return l.m.After(ctx, o, output)
}

// keepLabels gives every rewritten input at least the labels the inputs
// had before: a restricting policy can add labels, never remove them.
func keepLabels(next, prev []*value.Variable) []*value.Variable {
	var all taint.Descriptor
	for _, p := range prev {
		if p != nil {
			all = all.Merge(p.Security)
		}
	}
	out := make([]*value.Variable, len(next))
	for i, n := range next {
		if n == nil {
			continue
		}
		c := *n
		if len(next) == len(prev) && prev[i] != nil {
			c.Security = c.Security.Merge(prev[i].Security)
		} else {
			c.Security = c.Security.Merge(all)
		}
		out[i] = &c
	}
	return out
}

// sameData reports whether two input lists hold the same data.
func sameData(a, b []*value.Variable) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if (a[i] == nil) != (b[i] == nil) {
			return false
		}
		if a[i] != nil && !value.Same(a[i].Data, b[i].Data) {
			return false
		}
	}
	return true
}

// labelOnly undoes the list a per-operation guard's label change makes:
// `allow with { addLabels }` over the operation's inputs replaces input 0
// with the labelled list of all inputs (SPEC §8 item 2). When that list
// holds exactly the inputs' data, the guard changed labels, not data: each
// input keeps its data and gets the list's labels.
func labelOnly(orig, rep []*value.Variable) []*value.Variable {
	if len(rep) == 0 || rep[0] == nil || len(orig) == 0 {
		return rep
	}
	list, ok := rep[0].Data.([]any)
	if !ok || len(list) != len(orig) {
		return rep
	}
	for i, x := range list {
		if orig[i] == nil || !value.Same(x, orig[i].Data) {
			return rep
		}
	}
	out := make([]*value.Variable, len(orig))
	for i, o := range orig {
		c := *o
		c.Security = o.Security.Merge(rep[0].Security)
		out[i] = &c
	}
	return out
}

// decideIn decides ev against session s, recording what it must.
func (e *Engine) decideIn(ctx context.Context, s *Session, ev Event) (d Decision, r Record) {
	s.Seq++
	if ev.Kind == PromptSubmit {
		// A turn begins: its context budget is whole again.
		s.Account.TurnContext = 0
	}
	s.hashed, s.current = nil, nil
	defer func() {
		e.batchContext(s, &d)
		if e.log != nil {
			r.Hashes = s.hashed
		}
		s.hashed, s.current = nil, nil
	}()
	if ev.Replay && ev.Logged != nil {
		return e.replayLogged(s, ev)
	}
	switch ev.Kind {
	case ToolBefore:
		return e.toolBefore(ctx, s, ev)
	case ToolAfter:
		return e.toolAfter(ctx, s, ev)
	}
	return e.lifecycle(ctx, s, ev)
}

// sessionLabels are the labels an input of the session carries: the
// context-wide ones, `influenced` once anything untrusted was seen, and
// the content labels of the fingerprinted outputs text copies from.
func (e *Engine) sessionLabels(s *Session, text string) ([]string, []Origin) {
	labels, origins := s.contextLabels()
	if contains(labels, "untrusted") && !contains(labels, "influenced") {
		labels = append(labels, "influenced")
	}
	cl, co := s.contentLabels(text)
	return appendNew(labels, cl...), append(origins, co...)
}

// descriptor makes a value descriptor of labels: `src:` labels are
// source taint, the rest data labels.
func descriptor(labels []string) taint.Descriptor {
	if !slices.ContainsFunc(labels, taint.IsSource) {
		// Data labels only (the common case): no lists to split them
		// into; taint.New copies what it keeps.
		return taint.New(labels...)
	}
	var data, src []string
	for _, l := range labels {
		if taint.IsSource(l) {
			src = append(src, l)
		} else {
			data = append(data, l)
		}
	}
	d := taint.New(data...)
	if len(src) > 0 {
		d = d.WithTaint(src...)
	}
	return d
}

// inputs turns a tool input into one Variable per field (sorted by name),
// each carrying its provenance (argVar): the session's labels for its
// text and where its value was seen.
func (e *Engine) inputs(s *Session, in map[string]any) ([]*value.Variable, []string, []string, []Origin) {
	names := make([]string, 0, len(in))
	for k := range in {
		names = append(names, k)
	}
	sort.Strings(names)
	vars := make([]*value.Variable, len(names))
	params := names
	var all []string
	var origins []Origin
	ctx, ctxOrigins := e.sessionLabels(s, "")
	for i, k := range names {
		v, p := e.argVar(s, ctx, ctxOrigins, value.FromGo(in[k]), 0)
		if all == nil && len(p.labels) > 0 {
			// Most calls have one field: its labels, in one allocation.
			all = make([]string, 0, len(p.labels))
		}
		all = appendNew(all, p.labels...)
		origins = mergeOrigins(origins, p.origins)
		vars[i] = v
	}
	if len(names) == 0 {
		all, origins = ctx, ctxOrigins
	}
	return vars, params, all, origins
}

func mergeOrigins(list []Origin, more []Origin) []Origin {
	for _, o := range more {
		dup := false
		for _, x := range list {
			if x.Seq == o.Seq && sameJoined(x.Labels, o.Labels) {
				dup = true
				break
			}
		}
		if !dup {
			if list == nil {
				list = make([]Origin, 0, len(more))
			}
			list = append(list, o)
		}
	}
	return list
}

// sameJoined reports whether strings.Join(a, ",") == strings.Join(b,
// ","), building them only when neither equal lists nor different
// lengths tell (a label holding a comma).
func sameJoined(a, b []string) bool {
	if slices.Equal(a, b) {
		return true
	}
	joinedLen := func(l []string) int {
		n := max(len(l)-1, 0)
		for _, s := range l {
			n += len(s)
		}
		return n
	}
	if joinedLen(a) != joinedLen(b) {
		return false
	}
	return strings.Join(a, ",") == strings.Join(b, ",")
}

// toolOp is the operation of a call of tool t with the given parameters,
// as the interpreter describes a tool call (guardrun.ToolCall).
func toolOp(t toolDef, name string, params []string, input map[string]any, facts callFacts) *guardrun.OperationContext {
	cmd, _ := input["command"].(string)
	tc := guardrun.ToolCall{Name: name, Labels: t.labels, Params: params, Command: cmd}
	if facts.ops != nil && cmd == facts.line {
		// One parse per decision: the facts' parse gave the labels.
		tc.Parsed = facts.ops
	}
	return tc.Operation()
}

// shape identifies a call for retry counting: tool and exact input.
func shape(tool string, input map[string]any) string {
	b, _ := json.Marshal(input)
	sum := sha256.Sum256(append([]byte(tool+"\x00"), b...))
	return hex.EncodeToString(sum[:12])
}

func (e *Engine) toolBefore(ctx context.Context, s *Session, ev Event) (Decision, Record) {
	t := e.tool(ev.Tool)
	in, line, cmdField, cmdOK := guardInput(t, ev.Input)
	f := &flow{input: in}
	f.vars, f.params, f.labels, f.origins = e.inputs(s, in)
	vars, params := f.vars, f.params
	var sh string
	try := 1
	if len(s.Retries) > 0 {
		sh = shape(ev.Tool, ev.Input)
		try = s.Retries[sh] + 1
	}
	tooDeep := false
	var v verdict
	facts := e.factsOf(t, ev, in, line)
	s.current = e.currentObject(s, ev, t)
	// A file named is a file read, and a call that can send what it
	// reads sends it; code guardrun cannot see into may send anything.
	readNamed, readDone := e.callLabels(s, ev, f, facts, facts.net || facts.inline || facts.opaqueTakes || hasPrefixIn(t.labels, "net:") || contains(t.labels, "tool:w"))
	vars = f.vars
	protected, protectedKey := e.protectedWrite(ev, facts, line)
	// A delete outside the workspace is decided by the policy's guards
	// first (they say it is a delete, and the user may opt out); guardrun's
	// own files stay protected whatever they say.
	protectedLater := protected != "" && facts.deletesOutside != ""
	switch {
	case !cmdOK:
		v = verdict{Verdict: guardrun.Verdict{Action: guardrun.Deny, Class: guardrun.ClassError,
			Reason: "command tool " + ev.Tool + " called without a command the policy can read (no string or argv field " + strings.Join(cmdFields, ", ") + ")"}}
	case protected != "" && !protectedLater:
		v = verdict{Verdict: guardrun.Verdict{Action: guardrun.Deny, Class: guardrun.ClassProtected,
			Reason: "guardrun protects its own files and the agents' hook settings: " + protected + "; edit them yourself, outside the agent"}}
	case !t.declared && e.cfg.UnknownTools == DenyUnknownTools:
		v = verdict{Verdict: guardrun.Verdict{Action: guardrun.Deny, Class: guardrun.ClassPolicy, Rule: "unknown-tools",
			Reason: fmt.Sprintf("tool %q is not declared in any policy's tool collection, and unknown tools are denied (Config.UnknownTools); declare it with its labels, e.g. var tools @mine = { %q: { labels: [] } }", ev.Tool, ev.Tool)}}
	case facts.unchecked != "":
		v = verdict{Verdict: guardrun.Verdict{Action: guardrun.Deny, Class: guardrun.ClassError,
			Reason: "the command cannot be checked: " + facts.unchecked}}
	default:
		v = e.chain(ctx, s, ev, f, func(f *flow) *guardrun.OperationContext {
			op := toolOp(t, ev.Tool, f.params, f.input, facts)
			if op.Unchecked {
				tooDeep = true
			}
			if sameInput(f.input, in) {
				facts.mark(op)
			} else {
				l, _, _ := commandOf(f.input)
				e.factsOf(t, ev, f.input, l).mark(op)
			}
			return op
		}, try)
		if f.inputChanged && !sameInput(f.input, in) && v.Action != guardrun.Deny {
			// The call runs as rewritten: what it writes and whether it
			// can be checked are decided again on its final form.
			l, _, _ := commandOf(f.input)
			fx := e.factsOf(t, ev, f.input, l)
			facts = fx
			readDone = false
			if why, key := e.protectedWrite(ev, fx, l); why != "" {
				protectedKey = key
				v = verdict{Verdict: guardrun.Verdict{Action: guardrun.Deny, Class: guardrun.ClassProtected,
					Reason: "guardrun protects its own files and the agents' hook settings: the rewritten call: " + why}}
			} else if fx.unchecked != "" {
				v = verdict{Verdict: guardrun.Verdict{Action: guardrun.Deny, Class: guardrun.ClassError,
					Reason: "the rewritten command cannot be checked: " + fx.unchecked}}
			}
		}
		if facts.expanded != "" && v.Action != guardrun.Deny && sameInput(f.input, in) && cmdField != "" {
			// Guards that read the command's text read it as bash will run
			// it too (braces, variables, globs expanded, aliases followed).
			if w := e.expandedVerdict(ctx, s, ev, t, in, cmdField, facts, try); rankOf(w.Action) > rankOf(v.Action) {
				v = w
			}
		}
		if !contains(t.labels, "cmd") && !isPatchTool(f.input) || v.Action == guardrun.Deny {
			// A command line's writes, and a patch's files (no file_path
			// field), are decided one by one as writes below.
			break
		}
		if w, ok := e.shellWrites(ctx, s, ev, facts, try); ok && v.Action != guardrun.Deny && rankOf(w.Action) > rankOf(v.Action) {
			w.Notes, w.Warnings = append(v.Notes, w.Notes...), append(v.Warnings, w.Warnings...)
			v = w
		}
	}
	if protectedLater && v.Action != guardrun.Deny {
		v = verdict{Verdict: guardrun.Verdict{Action: guardrun.Deny, Class: guardrun.ClassProtected,
			Reason: "guardrun protects its own files and the agents' hook settings: " + protected + "; edit them yourself, outside the agent"}}
	}
	if tooDeep {
		// Guards saw incomplete command labels: whatever they said, the
		// call is refused.
		v = verdict{Verdict: guardrun.Verdict{Action: guardrun.Deny, Class: guardrun.ClassError,
			Reason: "the command cannot be checked: not every command it runs could be read (a construct bash runs that the analysis does not model, or nesting too deep)"}}
	}
	if v.rewrittenBy != "" && v.Action == guardrun.Allow {
		// A restricting policy's rewrite is never the host's explicit
		// allow: the human sees the new call.
		v.Action = guardrun.Ask
		v.Reason = "policy " + v.rewrittenBy + " rewrote this call (a workspace policy can restrict, not approve); run the rewritten call?"
		v.Guard, v.policy = "", v.rewrittenBy
	}
	if sh == "" && (v.Action == guardrun.Retry || v.Action == guardrun.Ask) {
		sh = shape(ev.Tool, ev.Input)
	}
	d := e.resolve(ctx, s, ev, sh, v, f.labels, f.origins)
	switch d.Outcome {
	case Deny:
		e.explain(&d, v, partOf(t, ev, f.input, line, facts), protectedKey)
	case Ask:
		e.askOptIn(&d, v)
	}
	d.RetryDelay = f.retryDelay
	if (d.Outcome == Allow || d.Outcome == Ask) && f.inputChanged && !sameInput(f.input, in) {
		// An ask is about the call in its final form: the host shows and
		// runs the rewritten input.
		d.Input = hostInput(f.input, ev.Input, cmdField)
	}
	if d.Outcome != Deny {
		// What a call writes holds what it read, trees included (an
		// archive of a directory holding .env).
		named := readNamed
		if !readDone {
			// Not read yet for these facts (the call does not send, or
			// was rewritten): the files are read once per decision.
			named, _ = readLabels(s, facts, true)
		}
		e.rememberWrites(s, ev, facts, withoutTrust(appendNew(append([]string(nil), f.labels...), named...)))
	}
	c := Call{Seq: s.Seq, Name: ev.Tool, Decision: d.Outcome, Time: e.when(ev), CallID: ev.CallID}
	if contains(t.labels, "cmd") {
		c.Command = line
	}
	s.addCall(c, e.cfg.Limits)
	return d, e.record(ev, &d, vars, params)
}

func (e *Engine) when(ev Event) time.Time {
	if !ev.Time.IsZero() {
		return ev.Time.UTC()
	}
	return e.now().UTC()
}

// resolve turns the chain's verdict into a decision: retries counted per
// call shape, asks answered from the session's approvals or the
// approver, denials typed.
func (e *Engine) resolve(ctx context.Context, s *Session, ev Event, sh string, v verdict, labels []string, origins []Origin) Decision {
	d := Decision{Outcome: Allow, Labels: labels, Warnings: v.Warnings}
	for _, n := range v.Notes {
		if n.Context != "" {
			d.Context = append(d.Context, Injection{Source: n.Guard, Text: capText(n.Context)})
		}
		if n.Message != "" {
			d.Messages = append(d.Messages, Injection{Source: n.Guard, Text: capText(n.Message)})
		}
	}
	switch v.Action {
	case guardrun.Deny:
		d.Outcome, d.Reason = Deny, v.Reason
		d.Denial = e.denial(v, labels, origins)
	case guardrun.Retry:
		if s.Retries == nil {
			s.Retries = map[string]int{}
		}
		s.Retries[sh]++
		d.Hint = v.Hint
		if s.Retries[sh] >= e.cfg.MaxRetries {
			d.Outcome = Deny
			d.Reason = fmt.Sprintf("retries exhausted (%d) for this call: %s", e.cfg.MaxRetries, v.Hint)
			d.Denial = e.denial(v, labels, origins)
			d.Denial.Action, d.Denial.Reason, d.Denial.Retryable = Deny, d.Reason, false
		} else {
			d.Outcome, d.Reason = Retry, v.Hint
			d.Denial = e.denial(v, labels, origins)
			d.Denial.Reason, d.Denial.Retryable = v.Hint, true
		}
	case guardrun.Ask:
		d.Question, d.Asker = v.Reason, v.Guard
		d.asked = e.denial(v, labels, origins)
		d.asked.Class, d.asked.Reason, d.asked.Hint, d.asked.Retryable = ClassApproval, v.Reason, "", false
		key := ev.Tool + "\x00" + v.Reason
		switch {
		case s.Approvals[key]:
			d.Approved = "cached"
			d.Approval = &Approval{Question: v.Reason, Answer: ReplyAlways, Reused: ReusedSession}
		case e.cfg.Approver != nil:
			// The human is asked after the session is released (Decide):
			// other events of the session must not wait on them.
			d.Outcome, d.Reason = Ask, v.Reason
			d.pending = &pendingAsk{key: key, seq: s.Seq, req: Request{Session: ev.Session, Tool: ev.Tool,
				Question: v.Reason, Guard: v.Guard, Input: ev.Input, Labels: labels}}
		default:
			d.Outcome, d.Reason = Ask, v.Reason
		}
	}
	return d
}

// denial types a refusal.
func (e *Engine) denial(v verdict, labels []string, origins []Origin) *Denial {
	dn := &Denial{Denial: guardrun.Denial{Action: v.Action, Guard: v.Guard, Rule: v.Rule,
		Policy: v.policy, Reason: v.Reason, Hint: v.Hint}}
	if h, ok := strings.CutPrefix(v.Guard, "hook:"); ok {
		dn.Hook = h
	}
	dn.Class = v.Class
	switch v.Class {
	case ClassPolicy, ClassCapability, ClassError, ClassProtected:
	case ClassHook:
		dn.Retryable = v.retryable
	default:
		dn.Class, dn.Retryable = ClassGuard, true
	}
	trig := labels
	if v.Label != "" {
		trig = []string{v.Label}
	}
	dn.Labels = trig
	traced := func(o Origin) bool {
		for _, l := range trig {
			if contains(o.Labels, l) || (l == "influenced" && contains(o.Labels, "untrusted")) {
				return true
			}
		}
		return false
	}
	n := 0
	for _, o := range origins {
		if traced(o) {
			n++
		}
	}
	if n > 0 {
		// Counted first: one allocation, and none for no lineage.
		dn.Lineage = make([]Origin, 0, n)
		for _, o := range origins {
			if traced(o) {
				dn.Lineage = append(dn.Lineage, o)
			}
		}
	}
	return dn
}

func capText(s string) string {
	if len(s) <= MaxInjection {
		return s
	}
	cut := MaxInjection - len("…[truncated]")
	for cut > 0 && !utf8Start(s[cut]) {
		cut--
	}
	return s[:cut] + "…[truncated]"
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }

// goInput converts rewritten inputs back to a tool input.
func goInput(params []string, vars []*value.Variable) map[string]any {
	out := make(map[string]any, len(vars))
	for i, v := range vars {
		if i >= len(params) || v == nil {
			continue
		}
		out[params[i]] = goValue(v.Data)
	}
	return out
}

// sameInput reports whether two tool inputs hold the same data.
func sameInput(a, b map[string]any) bool { return value.Same(a, b) }

// goValue is value data as plain Go values (a rewritten input or output
// handed back to the host), as its JSON would read.
func goValue(data any) any {
	if x, ok := value.ToGo(data); ok {
		return x
	}
	return value.Text(data)
}

// srcFor is the source taint of a tool's output, by kind of tool.
func srcFor(t toolDef, name string) string {
	switch {
	case strings.HasPrefix(name, "mcp__") || strings.HasPrefix(name, "mcp_"):
		return "src:mcp"
	case hasPrefixIn(t.labels, "net:"):
		return "src:network"
	case contains(t.labels, "cmd"):
		return "src:cmd"
	case hasPrefixIn(t.labels, "fs:"):
		return "src:file"
	}
	return "src:tool"
}

func hasPrefixIn(list []string, p string) bool {
	for _, l := range list {
		if strings.HasPrefix(l, p) {
			return true
		}
	}
	return false
}

func (e *Engine) toolAfter(ctx context.Context, s *Session, ev Event) (Decision, Record) {
	m := markOf(s)
	d, r := e.toolAfterIn(ctx, s, ev)
	if ev.Replay {
		e.restore(s, ev, ev.Brought)
	}
	if e.log != nil {
		r.Brought = broughtSince(s, m)
	}
	return d, r
}

// toolAfterIn decides a tool's output; a replayed event (its output is
// not in the log) brings nothing into the session here: toolAfter
// restores what the log says it brought.
func (e *Engine) toolAfterIn(ctx context.Context, s *Session, ev Event) (Decision, Record) {
	t := e.tool(ev.Tool)
	// The tool ran, whatever guards say of its output now.
	s.setOutcome(ev)
	in, line, _, _ := guardInput(t, ev.Input)
	vars, params, labels, origins := e.inputs(s, in)
	// A tool's output takes its trust from what the tool returns (and
	// what a guard vouches for), never from the arguments that asked
	// for it: the after phase sees the arguments without trust labels.
	for i, v := range vars {
		if v != nil && hasTrust(v.Security.Labels()) {
			c := *v
			c.Security = c.Security.WithoutLabels(trustOf(v.Security.Labels())...)
			vars[i] = &c
		}
	}
	labels = withoutTrust(labels)
	op := toolOp(t, ev.Tool, params, in, callFacts{})
	var data any = value.FromGo(ev.Output)
	if ev.Output == nil && ev.Error != "" {
		data = ev.Error
	}
	outLabels := appendNew(append([]string(nil), t.returns...), srcFor(t, ev.Tool))
	facts := e.factsOf(t, ev, in, line)
	if facts.fetches() {
		// What a fetcher printed (curl, wget, gh, ssh…) is third-party
		// text, as a web tool's output is.
		outLabels = appendNew(outLabels, "untrusted", "src:network")
	}
	extra, why := readLabels(s, facts, true)
	if len(extra) > 0 {
		// What a call that read a secret file printed is secret.
		outLabels = appendNew(outLabels, extra...)
	}
	file := e.fileRead(t, ev, facts, why, vars)
	out := &value.Variable{Data: data, Security: descriptor(outLabels), Source: "tool:" + ev.Tool}
	f := &flow{input: in, vars: vars, params: params, labels: labels, origins: origins, out: out}
	v := e.chain(ctx, s, ev, f, func(*flow) *guardrun.OperationContext { return op }, 1)
	final := f.out
	d := e.resolve(ctx, s, ev, shape(ev.Tool, ev.Input), v, labels, origins)
	if d.Outcome == Deny {
		e.explain(&d, v, partOf(t, ev, in, line, facts), "")
	}
	e.askOptIn(&d, v)
	if d.Outcome != Allow || final == nil {
		// A refusal does not take the output back: the tool ran, and
		// hosts show its output beside the reason (Claude Code's
		// PostToolUse) or do not wait for the answer at all (Cursor's
		// after-events). The session records it as it came, with the
		// labels it had when it was refused, and `secret`: what a guard
		// refused to show may not leave either.
		seen := out
		if final != nil {
			seen = final
		}
		if !ev.Replay {
			refused := appendNew(e.dataLabels(t, seen), "secret")
			e.rememberFields(s, ev, file, refused, data, nil)
			s.keepOutput(ev, t, value.Text(seen.Data), refused)
		}
		return d, e.record(ev, &d, vars, params)
	}
	if !value.Same(final.Data, data) {
		d.Output = goValue(final.Data)
		// Not every host shows the rewritten output (Cursor's after-events
		// only observe): what the tool returned is remembered with the
		// labels it came with, as well as the rewrite.
		if !ev.Replay {
			e.rememberFields(s, ev, file, e.dataLabels(t, out), data, nil)
		}
	}
	kept := e.dataLabels(t, final)
	if contains(kept, "untrusted") && !contains(kept, Injected) && !ev.Replay {
		// What the agent is shown: the guards' rewrite, else the output.
		var shown any = ev.Error
		switch {
		case d.Output != nil:
			shown = d.Output
		case ev.Output != nil:
			shown = ev.Output
		}
		if line := remoteCodeLine(shown); line != "" {
			// Third-party text that tells its reader to run downloaded
			// code: every later command is the human's to approve.
			kept = append(kept, Injected)
		}
	}
	d.Labels = kept
	text := value.Text(final.Data)
	if !ev.Replay {
		// A dotenv file's public lines (NEXT_PUBLIC_…) are not secret.
		if !(contains(kept, "secret") && isDotenv(file) && e.rememberDotenv(s, ev, file, kept, final.Data, t.fields)) {
			e.rememberFields(s, ev, file, kept, final.Data, t.fields)
		}
	}
	if !contains(kept, "secret") && !ev.Replay {
		// A credential in the output is secret wherever it came from:
		// its own text is fingerprinted, not the whole output.
		for _, m := range credscan.Scan(text) {
			e.rememberFields(s, ev, file, []string{"secret"}, text[m.Start:m.End], nil)
			d.Labels = appendNew(d.Labels, "secret")
		}
	}
	if !ev.Replay {
		s.keepOutput(ev, t, text, d.Labels)
	}
	e.recordFile(s, ev, t)
	if ev.Error == "" {
		e.recordShellReads(s, ev, facts)
	}
	return d, e.record(ev, &d, vars, params)
}

// dataLabels are the labels of a tool's output: the tool's own labels
// describe the operation, not the data.
func (e *Engine) dataLabels(t toolDef, out *value.Variable) []string {
	var kept []string
	for _, l := range out.Security.Taint() {
		if taint.IsOperation(l) || taint.IsDirectory(l) || (contains(t.labels, l) && !contains(t.returns, l)) {
			continue
		}
		kept = appendNew(kept, l)
	}
	return kept
}

// remember records what an event brought into the session (data: its
// text, or its structured output): integrity labels context-wide;
// confidentiality and trust labels as fingerprints of the text
// (confidentiality labels context-wide in strict mode); and the text's
// values, whatever its labels, in the exact-value index (values.go).
// An output with no token (`[]`, `{}`, `null`) holds nothing to trace:
// its labels go nowhere.
func (e *Engine) remember(s *Session, ev Event, labels []string, data any) {
	e.rememberFields(s, ev, "", labels, data, nil)
}

// rememberFields is remember for an output whose named fields hold
// values of their own labels (toolDef.fields): the values of each such
// field are indexed for an origin of the output's labels without its
// trust labels, and the field's. file is the file the output came
// from, as a denial names it (Origin.File; "" for none).
func (e *Engine) rememberFields(s *Session, ev Event, file string, labels []string, data any, fields map[string][]string) {
	text := value.Text(data)
	var integ, conf []string
	seen, _ := s.contextLabels()
	for _, l := range labels {
		switch {
		case contains(seen, l) || (l == "influenced" && contains(seen, "untrusted")):
			// Already context-wide: the lineage keeps the event that
			// brought it first.
		case isIntegrity(l):
			integ = append(integ, l)
		default:
			conf = append(conf, l)
		}
	}
	if len(integ) > 0 {
		i := s.addOrigin(Origin{Seq: s.Seq, Event: ev.Kind, Tool: ev.Tool, CallID: ev.CallID, File: file, Labels: integ}, e.cfg.Limits)
		s.addContext(i)
	}
	if len(tokens(text)) == 0 {
		return
	}
	i := s.addOrigin(Origin{Seq: s.Seq, Event: ev.Kind, Tool: ev.Tool, CallID: ev.CallID, File: file, Labels: conf}, e.cfg.Limits)
	if len(conf) > 0 {
		if e.strict && len(withoutTrust(conf)) > 0 {
			s.addContext(i)
		} else {
			s.addPrints(text, i, e.cfg.Limits)
		}
	}
	rest, parts := splitFields(data, fields)
	s.addValues(rest, i, e.cfg.Limits)
	names := make([]string, 0, len(parts))
	for k := range parts {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		fo := Origin{Seq: s.Seq, Event: ev.Kind, Tool: ev.Tool, CallID: ev.CallID, File: file, Labels: appendNew(withoutTrust(conf), fields[k]...)}
		s.addValues(strings.Join(parts[k], "\n"), s.addOrigin(fo, e.cfg.Limits), e.cfg.Limits)
	}
}

// lifecycle decides an event that is not a tool call as an operation of
// its own kind (op:prompt, op:stop, op:session, …) whose input is the
// event's text.
func (e *Engine) lifecycle(ctx context.Context, s *Session, ev Event) (Decision, Record) {
	in := map[string]any{}
	field := "text"
	switch ev.Kind {
	case PromptSubmit:
		field = "prompt"
	case AgentStop, Notification:
		field = "message"
	case ModelBefore:
		field = "request"
	case ModelAfter:
		field = "response"
	}
	if ev.Text != "" {
		in[field] = ev.Text
	}
	if ev.Source != "" {
		in["source"] = ev.Source
	}
	if ev.Kind == AgentStop {
		in["stopActive"] = ev.StopActive
	}
	if ev.Kind == ModelBefore || ev.Kind == ModelAfter {
		// Guards see the call counted (@mx.session): a budget crossed by
		// this response is crossed now.
		s.Account.modelEvent(ev)
	}
	f := &flow{input: in}
	f.vars, f.params, f.labels, f.origins = e.inputs(s, in)
	vars, params := f.vars, f.params
	v := e.chain(ctx, s, ev, f, func(f *flow) *guardrun.OperationContext {
		return &guardrun.OperationContext{Type: ev.Kind.opType(), Subtype: string(ev.Kind), Name: string(ev.Kind),
			Params: f.params}
	}, 1)
	var rewritten []*value.Variable
	if f.inputChanged {
		rewritten = f.vars
	}
	if ev.Kind == AgentStop && ev.StopActive && v.Action == guardrun.Retry {
		// A stop hook already kept the agent working once: another retry
		// could loop forever, so the agent may stop.
		v.Action = guardrun.Allow
	}
	d := e.resolve(ctx, s, ev, shape(string(ev.Kind), in), v, f.labels, f.origins)
	e.explain(&d, v, callPart{}, "")
	e.askOptIn(&d, v)
	if d.Outcome == Allow && rewritten != nil {
		if in := goInput(params, rewritten); !sameInput(in, goInput(params, vars)) {
			d.Input = in
		}
		// What the agent will read carries the labels guards gave it.
		for _, rv := range rewritten {
			if rv != nil {
				e.remember(s, ev, rv.Security.Taint(), value.Text(rv.Data))
			}
		}
	} else if d.Outcome == Allow && ev.Kind == PromptSubmit {
		// The user's words are indexed as values (`.mx.seenIn`).
		e.remember(s, ev, nil, ev.Text)
	}
	if d.Outcome == Allow && ev.Kind == PromptSubmit {
		s.Prompt = capPrompt(ev.Text)
	}
	// A session.end does not end the state: hosts resume a session under
	// the same id with its transcript (Claude Code's SessionStart source
	// "resume"), so what it read, its counts and approvals stay until the
	// store expires the session by age.
	return d, e.record(ev, &d, vars, params)
}

// toolsObject is `@mx.tools`: the session's calls in order.
func (e *Engine) toolsObject(s *Session) *value.Object {
	t := value.NewObject()
	t.Set("calls", s.callsObjects())
	t.Set("reads", s.readsObject())
	if s.current == nil {
		s.current = value.NewObject()
	}
	t.Set("current", s.current)
	t.Set("counts", s.countsObject())
	return t
}

// record builds the decision-log record. An input field that carries a
// confidentiality label is masked, a prompt or model text digested
// (textDigest), and both are kept as the texts the reason must not
// quote (logDecision masks it once it is final).
func (e *Engine) record(ev Event, d *Decision, vars []*value.Variable, params []string) Record {
	if e.log == nil {
		return Record{}
	}
	r := Record{Session: ev.Session, Event: ev.Kind, Tool: ev.Tool, CallID: ev.CallID, Cwd: ev.Cwd, Confined: ev.Confined, Decision: d.Outcome,
		Reason: d.Reason, Labels: d.Labels}
	r.decidedBy(d)
	if len(vars) > 0 {
		r.Input = make(map[string]any, len(vars))
		for i, v := range vars {
			name := params[i]
			text, isText := v.Data.(string)
			switch {
			case confidential(v.Security.Labels()):
				r.Input[name] = Masked
				if isText {
					r.masks = append(r.masks, text)
				} else {
					r.masks = appendTexts(r.masks, goValue(v.Data))
				}
			case isText && modelText(ev.Kind, name):
				r.Input[name] = textDigest(text)
				r.masks = append(r.masks, text)
			default:
				r.Input[name] = goValue(v.Data)
			}
		}
	}
	if ev.Kind == ToolAfter && confidential(d.Labels) {
		// The output is not logged, but a reason may quote it.
		r.masks = appendTexts(r.masks, ev.Output)
	}
	return r
}

// decidedBy sets the record's rule, guard and class from the decision's
// denial, or from its ask (an ask left to the host, or approved): class
// ClassApproval and the guard that asked.
func (r *Record) decidedBy(d *Decision) {
	dn := d.Denial
	if dn == nil {
		dn = d.asked
	}
	if dn != nil {
		r.Rule, r.Guard, r.Class = dn.Rule, dn.Guard, dn.Class
	}
}

// modelText reports whether field of a kind's input is a prompt or a
// model's request or response: text the log digests.
func modelText(k Kind, field string) bool {
	switch k {
	case PromptSubmit:
		return field == "prompt"
	case ModelBefore:
		return field == "request"
	case ModelAfter:
		return field == "response"
	}
	return false
}

func confidential(labels []string) bool {
	for _, l := range labels {
		if !isIntegrity(l) {
			return true
		}
	}
	return false
}

func (e *Engine) logDecision(ev Event, d *Decision, r Record) {
	if e.log == nil {
		return
	}
	if r.Event == "" {
		// The event failed before it was decided: log what is safe to.
		// Which of its values carry a label is not known, so the
		// reason may quote none of them.
		r = Record{Session: ev.Session, Event: ev.Kind, Tool: ev.Tool, CallID: ev.CallID, Cwd: ev.Cwd, Confined: ev.Confined, Decision: d.Outcome, Reason: d.Reason, Class: ClassError}
		r.masks = appendTexts(appendTexts(nil, ev.Text), ev.Input)
	}
	r.Time = e.when(ev)
	r.Decision, r.Reason = d.Outcome, maskText(d.Reason, r.masks)
	// An ask was settled after the record was built: it says who asked
	// and what the human answered.
	r.decidedBy(d)
	if d.Approval != nil {
		ap := *d.Approval
		ap.Question = maskText(ap.Question, r.masks)
		r.Approval = &ap
	}
	r.LatencyUS = d.Latency.Microseconds()
	r.PolicyHash = e.hash
	if err := e.log.write(&r); err != nil && d.Outcome != Deny {
		// A decision that cannot be logged is not taken.
		*d = failed("decision log: " + err.Error())
		d.PolicyHash = e.hash
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// expandedVerdict runs the guards again on the call with its command as
// bash will run it (facts.expanded): a rule written against the text
// (`--force`, `rm -rf /`) then sees what brace expansion, variables or a
// git alias spelt differently. Its reason says so.
func (e *Engine) expandedVerdict(ctx context.Context, s *Session, ev Event, t toolDef, in map[string]any, cmdField string, facts callFacts, try int) verdict {
	in2 := maps.Clone(in)
	in2[cmdField] = facts.expanded
	f2 := &flow{input: in2}
	f2.vars, f2.params, f2.labels, f2.origins = e.inputs(s, in2)
	v := e.chain(ctx, s, ev, f2, func(f *flow) *guardrun.OperationContext {
		op := toolOp(t, ev.Tool, f.params, f.input, facts)
		facts.mark(op)
		return op
	}, try)
	if v.Action != guardrun.Allow {
		v.Reason = "as bash runs it (" + facts.expanded + "): " + v.Reason
	}
	return v
}
