package policytest

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/guardrun/guardrun"
	"github.com/guardrun/guardrun/ast"
	"github.com/guardrun/guardrun/conformance"
	"github.com/guardrun/guardrun/interp/hooks"
	"github.com/guardrun/guardrun/interp/value"
)

// Options configure a test run.
type Options struct {
	// Run selects tests whose name matches (nil: all). A decision test's
	// name is "FILE: NAME", a script case's its directory.
	Run *regexp.Regexp
	// Coverage, when set, collects the guards and arms reached.
	Coverage *Coverage
	// Timeout bounds one test (0: conformance.DefaultTimeout).
	Timeout time.Duration
	// CommandTimeout bounds one command of a script (0: the facade's
	// default).
	CommandTimeout time.Duration
}

// Result is one test's outcome.
type Result struct {
	Name string `json:"name"`
	// Kind is "decision", "events" or "script".
	Kind string `json:"kind"`
	File string `json:"file"`
	Line int    `json:"line,omitempty"`
	Pass bool   `json:"pass"`
	// Failures say what was expected and what happened, each starting
	// with the position of the expectation.
	Failures []string `json:"failures,omitempty"`
	Elapsed  float64  `json:"elapsed_ms"`
	// Events are an events test's decisions, one per event.
	Events []EventResult `json:"events,omitempty"`
}

// Run finds the tests under paths (files or directories) and runs them:
// decision test files first, then script cases, each in path order.
func Run(ctx context.Context, paths []string, opts Options) ([]Result, error) {
	var testFiles []string
	var caseDirs []string
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			if !strings.HasSuffix(p, TestSuffix) {
				return nil, fmt.Errorf("%s: not a directory or a *%s file", p, TestSuffix)
			}
			testFiles = append(testFiles, p)
			continue
		}
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && strings.HasSuffix(path, TestSuffix) {
				testFiles = append(testFiles, path)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		dirs, err := scriptCases(p)
		if err != nil {
			return nil, err
		}
		caseDirs = append(caseDirs, dirs...)
	}
	sort.Strings(testFiles)
	var results []Result
	for _, tf := range testFiles {
		rs, err := runFile(ctx, tf, opts)
		if err != nil {
			return nil, err
		}
		results = append(results, rs...)
	}
	for _, dir := range caseDirs {
		if opts.Run != nil && !opts.Run.MatchString(dir) {
			continue
		}
		results = append(results, runCase(ctx, dir, opts))
	}
	return results, nil
}

// scriptCases lists the mlld-format case directories under root (root
// itself included), with conformance's discovery rule.
func scriptCases(root string) ([]string, error) {
	var out []string
	entries, err := os.ReadDir(root)
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		if !e.IsDir() && strings.HasPrefix(e.Name(), "example") && (strings.HasSuffix(e.Name(), ".md") || strings.HasSuffix(e.Name(), ".mld")) {
			return []string{root}, nil
		}
	}
	cases, err := conformance.Discover(root)
	if err != nil {
		return nil, err
	}
	for _, c := range cases {
		out = append(out, filepath.Join(root, filepath.FromSlash(c.Path)))
	}
	return out, nil
}

func runFile(ctx context.Context, path string, opts Options) ([]Result, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	f, err := Parse(path, src)
	if err != nil {
		return nil, err
	}
	if opts.Coverage != nil {
		for _, l := range f.Layers {
			opts.Coverage.AddFile(l)
		}
	}
	var out []Result
	for _, t := range f.Tests {
		name := path + ": " + t.Name
		if opts.Run != nil && !opts.Run.MatchString(name) {
			continue
		}
		if t.Kind == "events" {
			out = append(out, runEvents(ctx, f, t, opts))
			continue
		}
		out = append(out, runDecision(ctx, f, t, opts))
	}
	return out, nil
}

// observed is what a decision test's run produced.
type observed struct {
	document  string
	err       *guardrun.Error
	decisions []guardrun.Explanation
	labels    map[string][]string // variable → labels, last definition
}

// runDecision runs one decision test: the policy file, then the body, in
// one fresh run.
func runDecision(ctx context.Context, f *File, t *Test, opts Options) Result {
	start := time.Now()
	res := Result{Name: t.Name, Kind: "decision", File: t.File, Line: t.Line}
	obs, offset, name := runBody(ctx, f, t, opts)
	for _, e := range t.Expects {
		if msg := e.check(obs); msg != "" {
			res.Failures = append(res.Failures, fmt.Sprintf("%s:%d: %s", t.File, e.Line, msg))
		}
	}
	if len(t.Expects) == 0 && obs.err != nil {
		res.Failures = append(res.Failures, fmt.Sprintf("%s:%d: run failed: %s", t.File, t.Line, describe(obs.err, name, offset, t)))
	}
	res.Pass = len(res.Failures) == 0
	res.Elapsed = float64(time.Since(start).Microseconds()) / 1000
	return res
}

// runBody compiles the policy and the body as one script. It returns
// the policy's line count, to translate positions in the body back to
// the test file.
func runBody(ctx context.Context, f *File, t *Test, opts Options) (obs observed, offset int, name string) {
	obs.labels = map[string][]string{}
	var policy []byte
	name, mode, dir := f.Path, guardrun.Strict, filepath.Dir(f.Path)
	if len(f.Layers) > 1 {
		obs.err = &guardrun.Error{Name: "TestError", Message: "a script test runs with one policy; several use lines (layered policies) are for events tests",
			Hint: "move this test to a file that uses one policy, or write it as test \"…\" events [ … ]"}
		return obs, 0, name
	}
	if f.Use != "" {
		var err error
		if policy, err = os.ReadFile(f.Use); err != nil {
			obs.err = &guardrun.Error{Name: "IOError", Message: err.Error()}
			return obs, 0, name
		}
		name, mode, dir = f.Use, guardrun.ModeForName(f.Use), filepath.Dir(f.Use)
		if len(policy) > 0 && policy[len(policy)-1] != '\n' {
			policy = append(policy, '\n')
		}
	}
	offset = strings.Count(string(policy), "\n")
	src := append(append([]byte{}, policy...), t.Body...)
	timeout := opts.Timeout
	if timeout <= 0 {
		timeout = conformance.DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	prg, err := guardrun.Compile(name, src, guardrun.WithMode(mode))
	if err != nil {
		obs.err = asError(err)
		return obs, offset, name
	}
	var mu sync.Mutex
	runOpts := []guardrun.RunOption{
		guardrun.WithDir(dir),
		guardrun.WithExplain(func(x guardrun.Explanation) {
			mu.Lock()
			obs.decisions = append(obs.decisions, x)
			mu.Unlock()
		}),
		guardrun.WithHooks(func(m *hooks.Manager) {
			m.RegisterPostAlways("policytest-labels", func(c *hooks.Call, v *value.Variable) (*value.Variable, error) {
				if c.Op != nil && c.Op.Type == "var" && v != nil {
					mu.Lock()
					obs.labels[c.Op.Name] = append([]string{}, v.Security.Labels()...)
					mu.Unlock()
				}
				return v, nil
			})
		}),
	}
	if opts.Coverage != nil {
		runOpts = append(runOpts, guardrun.WithCoverage(opts.Coverage.Hit))
	}
	if opts.CommandTimeout > 0 {
		runOpts = append(runOpts, guardrun.WithCommandTimeout(opts.CommandTimeout))
	}
	r, err := prg.Run(ctx, runOpts...)
	if r != nil {
		obs.document = r.Document
	}
	if err != nil {
		obs.err = asError(err)
	}
	return obs, offset, name
}

func asError(err error) *guardrun.Error {
	var e *guardrun.Error
	if errors.As(err, &e) {
		return e
	}
	return &guardrun.Error{Name: "InterpreterError", Message: err.Error()}
}

// describe renders a run error, with a position in the body translated
// to the test file.
func describe(e *guardrun.Error, name string, offset int, t *Test) string {
	msg := e.Message
	if e.Pos.Line > 0 && e.Pos.File == name && e.Pos.Line > offset {
		msg = fmt.Sprintf("%s:%d:%d: %s", t.File, t.BodyLine+e.Pos.Line-offset-1, e.Pos.Col, msg)
	} else if e.Pos.Line > 0 {
		msg = e.Pos.String() + ": " + msg
	}
	return msg
}

// decision is the run's decision: the first deny or retry a guard or
// policy made, else allow.
func (o observed) decision() (string, *guardrun.Explanation) {
	for i, x := range o.decisions {
		if !x.Overridden() && (x.Decision == guardrun.Deny || x.Decision == guardrun.Retry) {
			return x.Decision.String(), &o.decisions[i]
		}
	}
	return "allow", nil
}

func (o observed) got() string {
	d, x := o.decision()
	if x == nil {
		if o.err != nil {
			return "allow, but the run failed: " + o.err.Message
		}
		return d
	}
	return fmt.Sprintf("%s by %s (%q)", d, x.Decider, x.Reason)
}

// check returns "" when the expectation holds, else what was expected
// and what happened.
func (e Expect) check(o observed) string {
	mismatch := func(got string) string { return fmt.Sprintf("%s\n    got: %s", e, got) }
	switch e.What {
	case "decision":
		if d, _ := o.decision(); d != e.Text || e.Text == "allow" && o.err != nil {
			return mismatch(o.got())
		}
	case "reason", "decider":
		for _, x := range o.decisions {
			field := x.Reason
			if e.What == "decider" {
				field = x.Decider
			}
			if e.Re != nil && e.Re.MatchString(field) || e.Re == nil && strings.Contains(field, e.Text) {
				return ""
			}
		}
		return mismatch(o.got())
	case "output":
		if strings.TrimSpace(o.document) != strings.TrimSpace(e.Text) {
			return mismatch(fmt.Sprintf("%q", strings.TrimSpace(o.document)))
		}
	case "output-contains":
		if !strings.Contains(o.document, e.Text) {
			return mismatch(fmt.Sprintf("%q", strings.TrimSpace(o.document)))
		}
	case "error":
		if o.err == nil {
			return mismatch("no error")
		}
		if !strings.Contains(o.err.Message, e.Text) {
			return mismatch(fmt.Sprintf("%q", o.err.Message))
		}
	case "labels":
		labels, ok := o.labels[e.Var]
		if !ok {
			return mismatch("no variable @" + e.Var + " was defined")
		}
		has := false
		for _, l := range labels {
			has = has || l == e.Text
		}
		if has != e.Includes {
			return mismatch(fmt.Sprintf("@%s.mx.labels is %q", e.Var, labels))
		}
	}
	return ""
}

// runCase runs one mlld-format script case with conformance's runner
// and pass rule.
func runCase(ctx context.Context, dir string, opts Options) Result {
	start := time.Now()
	res := Result{Name: dir, Kind: "script", File: dir}
	run := conformance.Facade
	if opts.Coverage != nil {
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			n := e.Name()
			if !e.IsDir() && (strings.HasSuffix(n, ".mld") || strings.HasPrefix(n, "example") && strings.HasSuffix(n, ".md")) {
				opts.Coverage.AddFile(filepath.Join(dir, n))
			}
		}
	}
	if opts.Coverage != nil || opts.CommandTimeout > 0 {
		run = func(ctx context.Context, s conformance.Script) conformance.Outcome {
			prg, err := guardrun.Compile(s.Name, s.Source, guardrun.WithMode(s.Mode))
			if err != nil {
				return conformance.Outcome{Err: asError(err)}
			}
			runOpts := []guardrun.RunOption{guardrun.WithDir(s.Dir)}
			if opts.CommandTimeout > 0 {
				runOpts = append(runOpts, guardrun.WithCommandTimeout(opts.CommandTimeout))
			}
			if opts.Coverage != nil {
				// The runner works in a temporary copy: map positions back.
				runOpts = append(runOpts, guardrun.WithCoverage(func(p ast.Pos) {
					if rel, err := filepath.Rel(s.Dir, p.File); err == nil && !strings.HasPrefix(rel, "..") {
						p.File = filepath.Join(dir, rel)
					}
					opts.Coverage.Hit(p)
				}))
			}
			r, err := prg.Run(ctx, runOpts...)
			var out conformance.Outcome
			if r != nil {
				out = conformance.Outcome{Document: r.Document, Stdout: r.Stdout, Stderr: r.Stderr}
			}
			if err != nil {
				out.Err = asError(err)
			}
			return out
		}
	}
	results := conformance.Run(ctx, []conformance.Case{{Path: "."}}, conformance.Options{CasesDir: dir, Run: run, Timeout: opts.Timeout, Jobs: 1})
	r := results[0]
	res.Pass = r.Pass
	if !r.Pass {
		res.Failures = append(res.Failures, dir+": "+r.Reason)
		for _, s := range r.Scripts {
			if s.Diff != "" {
				res.Failures = append(res.Failures, s.Diff)
			}
		}
	}
	res.Elapsed = float64(time.Since(start).Microseconds()) / 1000
	return res
}
