//go:build e2e

package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/guardrun/guardrun/e2e/fakemodel"
)

// scenario is one end-to-end case: a world prepared before and after
// `guardrun init`, a scripted model, and checks of what the host did.
type scenario struct {
	name string
	// prompt is the user's prompt (the fake model ignores it).
	prompt string
	// beforeInit prepares the world before the host's setup (hook
	// command override, Codex trust).
	beforeInit func(h *host, w *world)
	// afterInit changes the world after setup (a broken policy).
	afterInit func(h *host, w *world)
	// script is what the model does.
	script func(h *host, w *world) []fakemodel.Step
	// limit bounds the host run (hostLimit when zero).
	limit time.Duration
	// check asserts what happened; c collects the failures.
	check func(c *checker, h *host, w *world, r runResult)
	// known names, per host, a problem the scenario shows today (in
	// guardrun or in the host): the failures are logged as KNOWN and
	// the run stays green; a known scenario that passes fails, so the
	// entry is removed when the problem is fixed.
	known map[string]string
	// aspects are further checks of the same run, each reported (and
	// known) on its own row.
	aspects []aspect
	// only lists the hosts the scenario applies to (all when empty);
	// why says why the others are left out.
	only []string
	why  string
	// noReplay says why the run's decision log is not replayed (the
	// replay row): the hook decided nothing, or with a policy the
	// replay does not load. Empty: `guardrun log --replay` against the
	// user's policy must report 0 changed decisions (issue 40).
	noReplay string
	// replayKnown is the replay row's known problem per host.
	replayKnown map[string]string
}

// aspect is a further check of a scenario's run with its own known
// problems.
type aspect struct {
	name  string
	check func(c *checker, h *host, w *world, r runResult)
	known map[string]string
}

// checker collects a scenario's failures so a known problem can be
// reported as such.
type checker struct {
	failures []string
}

func (c *checker) Errorf(format string, args ...any) {
	c.failures = append(c.failures, fmt.Sprintf(format, args...))
}

// result is one scenario's outcome on one host, for the summary.
type result struct {
	host, scenario, outcome, note string
}

var (
	resultsMu sync.Mutex
	results   []result
)

func record(r result) {
	resultsMu.Lock()
	defer resultsMu.Unlock()
	results = append(results, r)
}

// summary is the table of outcomes printed after the run.
func summary() string {
	resultsMu.Lock()
	defer resultsMu.Unlock()
	sort.SliceStable(results, func(i, j int) bool { return results[i].host < results[j].host })
	var b strings.Builder
	b.WriteString("\nguardrun e2e summary\n")
	for _, r := range results {
		fmt.Fprintf(&b, "%-7s %-24s %-6s %s\n", r.host, r.scenario, r.outcome, r.note)
	}
	return b.String()
}

// hosts are the agents under test, in order.
var hosts = []*host{claude, gemini, codex}

func TestHosts(t *testing.T) {
	for _, h := range hosts {
		t.Run(h.name, func(t *testing.T) {
			t.Parallel()
			for _, sc := range scenarios {
				t.Run(sc.name, func(t *testing.T) { runScenario(t, h, sc) })
			}
		})
	}
}

func runScenario(t *testing.T, h *host, sc scenario) {
	if len(sc.only) > 0 && !contains(sc.only, h.name) {
		record(result{h.name, sc.name, "n/a", sc.why})
		t.Logf("not applicable on %s: %s", h.name, sc.why)
		return
	}
	w := newWorld(t)
	w.serve()
	if sc.beforeInit != nil {
		sc.beforeInit(h, w)
	}
	h.setup(w)
	if sc.afterInit != nil {
		sc.afterInit(h, w)
	}
	w.model.SetScript(sc.script(h, w))
	prompt := sc.prompt
	if prompt == "" {
		prompt = "Do the task."
	}
	limit := sc.limit
	if limit == 0 {
		limit = hostLimit
	}
	w.limit = limit
	r := h.run(w, prompt, "")
	if os.Getenv("GUARDRUN_E2E_VERBOSE") != "" {
		t.Logf("host output:\n%s\nrequests: %d, transcript:\n%s", r.Out, len(w.model.Requests()), tail(w.model.Transcript(), 4000))
		t.Logf("hook trace:\n%s", w.read(filepath.Join(w.home, "hook-trace.log")))
		if reqs := w.model.Requests(); len(reqs) > 0 && os.Getenv("GUARDRUN_E2E_VERBOSE") == "2" {
			t.Logf("first request: %s", reqs[0].Body)
		}
	}
	c := &checker{}
	sc.check(c, h, w, r)
	finish(t, h.name, sc.name, c, sc.known[h.name], r, w)
	for _, a := range sc.aspects {
		c := &checker{}
		a.check(c, h, w, r)
		finish(t, h.name, sc.name+"/"+a.name, c, a.known[h.name], r, w)
	}
	if sc.noReplay == "" {
		c := &checker{}
		replaysClean(c, w)
		finish(t, h.name, sc.name+"/replay", c, sc.replayKnown[h.name], r, w)
	}
}

// replaysClean asserts that the decision log the hook wrote, replayed
// against the user's policy that made it (`guardrun log --replay`, in
// the world's directories), reports 0 changed decisions.
func replaysClean(c *checker, w *world) {
	log := filepath.Join(w.home, ".local", "state", "guardrun", "decisions.jsonl")
	if !w.exists(log) {
		c.Errorf("no decision log to replay")
		return
	}
	policy := filepath.Join(w.home, ".config", "guardrun", "policy.guard")
	out, err := w.cmd(filepath.Join(binDir, "guardrun"), "log", "--replay", log, "--policy", policy).CombinedOutput()
	if err != nil || !strings.Contains(string(out), " 0 changed") {
		c.Errorf("guardrun log --replay against the policy that made the log (%v):\n%s", err, tail(string(out), 2000))
	}
}

// finish records a case's outcome: a failure fails the test unless it
// is a known problem, and a known problem that no longer shows fails it
// too (so the entry is removed).
func finish(t *testing.T, hostName, name string, c *checker, known string, r runResult, w *world) {
	t.Helper()
	switch {
	case len(c.failures) == 0 && known == "":
		record(result{hostName, name, "pass", ""})
	case len(c.failures) == 0:
		record(result{hostName, name, "FIXED", known})
		t.Errorf("known problem no longer shows on %s: remove it from the case: %s", hostName, known)
	case known != "":
		record(result{hostName, name, "known", known})
		t.Logf("KNOWN PROBLEM on %s: %s\n  %s", hostName, known, strings.Join(c.failures, "\n  "))
	default:
		record(result{hostName, name, "FAIL", c.failures[0]})
		t.Errorf("%s", strings.Join(c.failures, "\n"))
	}
	if len(c.failures) > 0 {
		t.Logf("host output:\n%s", tail(r.Out, 3000))
		t.Logf("last tool results the model saw:\n%s", tail(w.model.LastToolResults(), 2000))
		t.Logf("guardrun log --all:\n%s", tail(w.decisionLog(), 3000))
		if tr := w.read(filepath.Join(w.home, "hook-trace.log")); tr != "" {
			t.Logf("hook trace:\n%s", tail(tr, 6000))
		}
	}
}

func contains(l []string, s string) bool {
	for _, e := range l {
		if e == s {
			return true
		}
	}
	return false
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

// steps is a script: each call its own turn, then a final text.
func steps(calls ...fakemodel.Call) []fakemodel.Step {
	var s []fakemodel.Step
	for _, c := range calls {
		s = append(s, fakemodel.Step{Calls: []fakemodel.Call{c}})
	}
	return append(s, fakemodel.Step{Text: "Done."})
}

// ranHello asserts the allowed command's effect.
func ranHello(c *checker, w *world) {
	if got := w.read(w.path("ran.txt")); got != "hello\n" {
		c.Errorf("allowed command did not run: ran.txt = %q", got)
	}
}

// notRan asserts the command did not run.
func notRan(c *checker, w *world, what string) {
	if w.exists(w.path("ran.txt")) {
		c.Errorf("%s: the command ran (ran.txt exists)", what)
	}
}

// collectorEmpty asserts nothing reached the collector.
func collectorEmpty(c *checker, w *world) {
	if hits := w.collector.Hits(); len(hits) > 0 {
		c.Errorf("the collector received %d request(s): %q", len(hits), hits)
	}
}

// toldDenial asserts the model was told guardrun's reason (mentioning
// one of subs).
func toldDenial(c *checker, w *world, subs ...string) {
	if !containsAny(w.model.Transcript(), subs...) {
		c.Errorf("the model was not told the denial (none of %q in what it was sent)", subs)
	}
}

// hostSettings is the host's own settings file `guardrun init` wrote.
func hostSettings(h *host, w *world) string {
	switch h.name {
	case "claude":
		return filepath.Join(w.home, ".claude", "settings.json")
	case "gemini":
		return filepath.Join(w.home, ".gemini", "settings.json")
	default:
		return filepath.Join(w.home, ".codex", "hooks.json")
	}
}

// writeHangingHook writes a hook command that never answers.
func writeHangingHook(w *world) string {
	p := filepath.Join(w.home, "hang.sh")
	must(w.t, os.WriteFile(p, []byte("#!/bin/sh\nexec sleep 300\n"), 0o755))
	return p
}

// lowerHookTimeouts rewrites the hook timeouts `guardrun init` wrote
// (30 s) to 3 s so a hanging hook costs seconds, as a user might.
func lowerHookTimeouts(h *host, w *world) {
	p := hostSettings(h, w)
	s := w.read(p)
	s = strings.ReplaceAll(s, `"timeout": 30`, `"timeout": 3`)
	s = strings.ReplaceAll(s, `"timeout": 10000`, `"timeout": 3000`)
	must(w.t, os.WriteFile(p, []byte(s), 0o600))
}

// toldOrShown asserts the reason reached the model or, when the host
// stopped before asking the model (a blocked prompt), its output.
func toldOrShown(c *checker, w *world, r runResult, subs ...string) {
	if !containsAny(w.model.Transcript(), subs...) && !containsAny(r.Out, subs...) {
		c.Errorf("neither the model nor the user was told why (none of %q)", subs)
	}
}

// fewTurns asserts a blocked session ended instead of keeping the model
// working (exit 2 on Stop means "keep going" to Claude Code).
func fewTurns(c *checker, w *world) {
	if n := w.model.MainTurns(); n > 3 {
		c.Errorf("the blocked session kept the model working: %d model turns", n)
	}
}

// decisionLog is what `guardrun log --all` shows in the world.
func (w *world) decisionLog() string {
	out, _ := w.cmd(filepath.Join(binDir, "guardrun"), "log", "--all").CombinedOutput()
	return string(out)
}

// loggedBlock asserts the fail-closed answer is in guardrun's decision
// log (on Codex the only place its reason is).
func loggedBlock(c *checker, w *world) {
	if l := w.decisionLog(); !containsAny(l, "deny", "block") {
		c.Errorf("the decision log has no denial: %s", tail(l, 300))
	}
}
