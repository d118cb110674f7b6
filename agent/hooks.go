package agent

import (
	"context"
	"fmt"
	"path"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/guardrun/guardrun"
	"github.com/guardrun/guardrun/interp/action"
)

// HookAction is what a hook answers: a guardrun.Action (Deny, Ask,
// Retry: the spelling decisions use) or one of the hook-only actions
// Continue, Modify and Skip.
type HookAction = guardrun.Action

// Hook actions (AGENT.md §8). The zero value continues (it is Allow);
// Deny, Ask and Retry (agent's, which are guardrun's) refuse, ask and ask
// for a retry.
const (
	Continue = action.Allow
	// Modify continues with a changed tool input (before) or output
	// (after).
	Modify = action.Modify
	// Skip ends hook processing: later hooks do not run. Guard scripts
	// still run: a hook cannot switch the policy off.
	Skip = action.Skip

	// Block denies the event; it is Deny.
	//
	// Deprecated: use Deny.
	Block = Deny
	// AskUser needs a human's approval, like a guard's ask; it is Ask.
	//
	// Deprecated: use Ask.
	AskUser = Ask
	// RetryCall asks the agent to change the call and try again, after
	// RetryDelay; it is Retry.
	//
	// Deprecated: use Retry.
	RetryCall = Retry
)

// HookInput is what a hook sees: the event, with the tool input as the
// chain has left it so far and, after a tool ran, its output.
type HookInput struct {
	Event Event
	// Labels are the labels the session gives the input.
	Labels []string
}

// HookResult is a hook's answer.
type HookResult struct {
	Action HookAction
	Reason string
	// Input replaces the tool input (Modify before); Output the tool
	// output (Modify after).
	Input  map[string]any
	Output any
	// Context is text for the agent, Message text for the user.
	Context, Message string
	RetryDelay       time.Duration
	// Retryable, on a Deny, tells the agent that a changed call may
	// pass (Denial.Retryable). It is false by default: a hook's refusal
	// is final, like a policy's, so the agent does not try variations
	// of the call to get past it; a hook that wants the call changed
	// and tried again says so, or answers Retry (which counts the
	// retries against Config.MaxRetries).
	Retryable bool
}

// HookFunc is a Go hook.
type HookFunc func(ctx context.Context, in HookInput) (HookResult, error)

// Matcher selects the events a hook runs for; every field given must
// match.
type Matcher struct {
	// Tool is a tool name or glob (`mcp__*`, `{Bash,Shell}`).
	Tool string
	// Path is a glob over the path-like arguments of the input
	// (file_path, path, paths, notebook_path, filename, dir, cwd).
	Path string
	// Command is a regular expression over the `command` argument.
	Command string
	// Session is an exact session id.
	Session string
}

// Hook is one entry of the engine's chain beside the guard scripts.
type Hook struct {
	Name string
	// Events are the kinds the hook runs for; none means tool.before.
	Events []Kind
	Match  Matcher
	// Priority orders the chain, lower first; guard scripts run at
	// Config.ScriptPriority (0 by default).
	Priority int
	// Timeout bounds one run (default 30s); a hook that overruns denies.
	Timeout time.Duration
	// Async makes the hook an observer: it runs in the background, its
	// answer is ignored and it can never block or slow a decision.
	Async bool
	// Func is a Go hook; Command an external command hook. Exactly one is
	// set.
	Func    HookFunc
	Command *CommandHook

	cmdRE *regexp.Regexp
}

// DefaultHookTimeout bounds a hook that sets no timeout.
const DefaultHookTimeout = 30 * time.Second

// pathArgs are the input fields a path matcher looks at: every field the
// tool table says names a file or files (toolPathFields: Gemini's
// absolute_path and Cursor's target_file among them), and a few more
// hosts use for directories.
var pathArgs = append(append([]string(nil), toolPathFields...), "filename", "dir", "cwd")

func (h *Hook) prepare() error {
	if (h.Func == nil) == (h.Command == nil) {
		return fmt.Errorf("hook %q: set exactly one of Func and Command", h.Name)
	}
	if h.Match.Command != "" {
		re, err := regexp.Compile(h.Match.Command)
		if err != nil {
			return fmt.Errorf("hook %q: command matcher: %v", h.Name, err)
		}
		h.cmdRE = re
	}
	if h.Match.Tool != "" {
		if !doublestar.ValidatePattern(h.Match.Tool) {
			return fmt.Errorf("hook %q: tool matcher %q: %w", h.Name, h.Match.Tool, doublestar.ErrBadPattern)
		}
	}
	if h.Match.Path != "" {
		if !doublestar.ValidatePattern(h.Match.Path) {
			return fmt.Errorf("hook %q: path matcher %q: %w", h.Name, h.Match.Path, doublestar.ErrBadPattern)
		}
	}
	if h.Command != nil {
		if err := h.Command.check(); err != nil {
			return fmt.Errorf("hook %q: %v", h.Name, err)
		}
	}
	return nil
}

// matches reports whether the hook runs for ev (input as the chain left
// it).
func (h *Hook) matches(ev Event, input map[string]any) bool {
	kinds := h.Events
	if len(kinds) == 0 {
		kinds = []Kind{ToolBefore}
	}
	if !containsKind(kinds, ev.Kind) {
		return false
	}
	m := h.Match
	if m.Session != "" && m.Session != ev.Session {
		return false
	}
	if m.Tool != "" && m.Tool != ev.Tool && !globMatch(m.Tool, ev.Tool) {
		return false
	}
	if h.cmdRE != nil {
		cmd, ok := input["command"].(string)
		if !ok || !h.cmdRE.MatchString(cmd) {
			return false
		}
	}
	if m.Path != "" && !pathMatches(m.Path, input) {
		return false
	}
	return true
}

func pathMatches(pattern string, input map[string]any) bool {
	for _, k := range pathArgs {
		var vals []string
		switch v := input[k].(type) {
		case string:
			vals = []string{v}
		case []any:
			for _, x := range v {
				if s, ok := x.(string); ok {
					vals = append(vals, s)
				}
			}
		}
		for _, p := range vals {
			if globPath(pattern, p) {
				return true
			}
		}
	}
	return false
}

// globPath matches a path glob (doublestar: `**` spans directories,
// `{a,b}` is either); a pattern without a slash matches the base name.
func globPath(pattern, p string) bool {
	if !strings.Contains(pattern, "/") {
		p = path.Base(p)
	}
	ok, _ := doublestar.Match(pattern, p)
	return ok
}

func containsKind(ks []Kind, k Kind) bool {
	for _, x := range ks {
		if x == k {
			return true
		}
	}
	return false
}

// sortHooks orders hooks by priority, keeping registration order among
// equals.
func sortHooks(hs []*Hook) {
	sort.SliceStable(hs, func(i, j int) bool { return hs[i].Priority < hs[j].Priority })
}

// runHook runs one synchronous hook with its timeout; an error, a panic
// or an overrun is a denial.
func runHook(ctx context.Context, h *Hook, in HookInput) (res HookResult, err error) {
	t := h.Timeout
	if t <= 0 {
		t = DefaultHookTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, t)
	defer cancel()
	type out struct {
		res HookResult
		err error
	}
	ch := make(chan out, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				ch <- out{err: fmt.Errorf("panic: %v", p)}
			}
		}()
		r, err := callHook(ctx, h, in)
		ch <- out{r, err}
	}()
	select {
	case o := <-ch:
		if o.err != nil {
			return HookResult{}, o.err
		}
		return o.res, validResult(o.res)
	case <-ctx.Done():
		return HookResult{}, fmt.Errorf("timed out after %s", t)
	}
}

func callHook(ctx context.Context, h *Hook, in HookInput) (HookResult, error) {
	if h.Func != nil {
		return h.Func(ctx, in)
	}
	return h.Command.run(ctx, in)
}

func validResult(r HookResult) error {
	switch r.Action {
	case Continue, Modify, Deny, Ask, Retry, Skip:
	default:
		return fmt.Errorf("unknown hook action %q", r.Action)
	}
	if r.Action == Ask && r.Reason == "" {
		return fmt.Errorf("an ask needs a question (Reason)")
	}
	return nil
}

// runAsync starts an observer: its answer is ignored, and nothing it
// does (block, panic, hang past its timeout) reaches the decision.
func runAsync(h *Hook, in HookInput) {
	go func() {
		defer func() { _ = recover() }()
		_, _ = runHook(context.Background(), h, in)
	}()
}
