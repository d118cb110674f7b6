package policytest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/guardrun/guardrun"
	"github.com/guardrun/guardrun/agent"
	"github.com/guardrun/guardrun/conformance"
)

// EventResult is one event's decision in an events test's result.
type EventResult struct {
	Line    int    `json:"line"`
	Event   string `json:"event"`
	Tool    string `json:"tool,omitempty"`
	Outcome string `json:"outcome"`
	Reason  string `json:"reason,omitempty"`
	Decider string `json:"decider,omitempty"`
}

// testSession is the session every event of an events test belongs to.
const testSession = "guardrun-test"

// testClock is the events' time: decisions must not depend on the day.
var testClock = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// runEvents decides an events test's events, in order and in one
// session, with the real agent engine over an in-memory store. Events
// with an `answer` go to a second engine over the same store whose
// approver gives that answer (each time: the engine keeps no answer to
// reuse, so every scripted answer is given); the others have no
// approver, so an ask is their decision.
func runEvents(ctx context.Context, f *File, t *Test, opts Options) Result {
	start := time.Now()
	res := Result{Name: t.Name, Kind: "events", File: t.File, Line: t.Line}
	failf := func(format string, args ...any) Result {
		res.Failures = append(res.Failures, fmt.Sprintf("%s:%d: ", t.File, t.Line)+fmt.Sprintf(format, args...))
		res.Elapsed = float64(time.Since(start).Microseconds()) / 1000
		return res
	}
	if f.Use == "" {
		return failf(`an events test needs the policy it runs against: add use "policy.guard" at the top of the file`)
	}
	// The layers as the hook has them: each policy from its own folder.
	var policies []agent.Policy
	for _, l := range f.Layers {
		src, err := os.ReadFile(l)
		if err != nil {
			return failf("%v", err)
		}
		policies = append(policies, agent.Policy{Name: l, Source: src, Dir: filepath.Dir(l)})
	}
	timeout := opts.Timeout
	if timeout <= 0 {
		timeout = conformance.DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	store := agent.NewMemoryStore()
	cfg := agent.Config{
		Policies:        policies,
		Dir:             filepath.Dir(f.Use),
		Store:           store,
		Now:             func() time.Time { return testClock },
		ApprovalTimeout: time.Second,
	}
	if opts.Coverage != nil {
		cfg.Cover = opts.Coverage.Hit
	}
	plain, err := agent.New(ctx, cfg)
	if err != nil {
		return failf("the policy does not load: %s", loadError(err))
	}
	defer plain.Close()
	var answering *agent.Engine
	var answer string
	for _, st := range t.Events {
		if st.Answer == "" {
			continue
		}
		cfg.AnswerTTL = -1
		cfg.Approver = agent.ApproverFunc(func(context.Context, agent.Request) (agent.Answer, error) {
			switch answer {
			case "once":
				return agent.AllowOnce, nil
			case "always":
				return agent.AllowAlways, nil
			}
			return agent.DenyIt, nil
		})
		if answering, err = agent.New(ctx, cfg); err != nil {
			return failf("the policy does not load: %s", loadError(err))
		}
		defer answering.Close()
		break
	}
	res.Pass = true
	for _, st := range t.Events {
		ev := st.Event
		ev.Session = testSession
		e := plain
		if st.Answer != "" {
			e, answer = answering, st.Answer
		}
		d := e.Decide(ctx, ev)
		res.Events = append(res.Events, EventResult{Line: st.Line, Event: string(ev.Kind), Tool: ev.Tool,
			Outcome: d.Outcome.String(), Reason: d.Reason, Decider: decider(&d)})
		for _, x := range st.Expects {
			if msg := x.checkEvent(st, &d); msg != "" {
				res.Pass = false
				res.Failures = append(res.Failures, fmt.Sprintf("%s:%d: %s", t.File, x.Line, msg))
			}
		}
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		res.Pass = false
		res.Failures = append(res.Failures, fmt.Sprintf("%s:%d: the test ran past its timeout (%s)", t.File, t.Line, timeout))
	}
	res.Elapsed = float64(time.Since(start).Microseconds()) / 1000
	return res
}

// decider names the guard or rule behind a decision: a denial's rule
// or guard, the guard that asked.
func decider(d *agent.Decision) string {
	if d.Denial != nil {
		if d.Denial.Rule != "" {
			return d.Denial.Rule
		}
		return d.Denial.Guard
	}
	return d.Asker
}

// gotEvent describes a decision for a failure message.
func gotEvent(d *agent.Decision) string {
	out := d.Outcome.String()
	if who := decider(d); who != "" {
		out += " by " + who
	}
	if d.Reason != "" {
		out += fmt.Sprintf(" (%q)", d.Reason)
	}
	if d.Input != nil {
		out += " with input " + jsonText(d.Input)
	}
	return out
}

func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// checkEvent returns "" when the expectation holds for the event's
// decision, else what was expected and what happened.
func (e Expect) checkEvent(st *Step, d *agent.Decision) string {
	mismatch := func(got string) string {
		return fmt.Sprintf("%s (line %d, %s)\n    got: %s", e, st.Line, st, got)
	}
	switch e.What {
	case "decision":
		if d.Outcome.String() != e.Text {
			return mismatch(gotEvent(d))
		}
	case "reason":
		if e.Re != nil && !e.Re.MatchString(d.Reason) || e.Re == nil && !strings.Contains(d.Reason, e.Text) {
			return mismatch(gotEvent(d))
		}
	case "decider":
		for _, who := range []string{decider(d), guardOf(d)} {
			if who != "" && strings.Contains(who, e.Text) {
				return ""
			}
		}
		return mismatch(gotEvent(d))
	case "class":
		if d.Denial == nil || string(d.Denial.Class) != e.Text {
			cls := "no denial"
			if d.Denial != nil {
				cls = "class " + strings.Trim(jsonText(d.Denial.Class), `"`)
			}
			return mismatch(cls + ": " + gotEvent(d))
		}
	case "input":
		if e.Value == nil {
			if d.Input != nil {
				return mismatch("input rewritten to " + jsonText(d.Input))
			}
			return ""
		}
		if d.Input == nil {
			return mismatch("input unchanged")
		}
		if jsonText(d.Input) != jsonText(e.Value) {
			return mismatch("input " + jsonText(d.Input))
		}
	case "output", "output-contains":
		if d.Output == nil {
			return mismatch("output unchanged")
		}
		got, ok := d.Output.(string)
		if !ok {
			got = jsonText(d.Output)
		}
		if e.What == "output" && strings.TrimSpace(got) != strings.TrimSpace(e.Text) ||
			e.What == "output-contains" && !strings.Contains(got, e.Text) {
			return mismatch(fmt.Sprintf("%q", got))
		}
	case "labels":
		has := false
		for _, l := range d.Labels {
			has = has || l == e.Text
		}
		if has != e.Includes {
			return mismatch(fmt.Sprintf("labels %q", d.Labels))
		}
	case "context", "message":
		list := d.Context
		if e.What == "message" {
			list = d.Messages
		}
		var texts []string
		for _, in := range list {
			if e.Includes && strings.Contains(in.Text, e.Text) || !e.Includes && strings.TrimSpace(in.Text) == strings.TrimSpace(e.Text) {
				return ""
			}
			texts = append(texts, in.Text)
		}
		if len(texts) == 0 {
			return mismatch("no " + e.What + " injected")
		}
		return mismatch(fmt.Sprintf("%s %q", e.What, texts))
	}
	return ""
}

// guardOf is the guard of a denial decided by a policy rule (a
// privileged guard may have stood behind it too).
func guardOf(d *agent.Decision) string {
	if d.Denial != nil {
		return d.Denial.Guard
	}
	return ""
}

// loadError renders why a policy does not load as a run renders an
// error: position, message, the offending line and the hint.
func loadError(err error) string {
	var ge *guardrun.Error
	if errors.As(err, &ge) {
		return strings.TrimSuffix(ge.Render(), "\n")
	}
	return err.Error()
}
