package conformance

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"time"

	"github.com/guardrun/guardrun"
)

// Script is one script to run, prepared by the runner.
type Script struct {
	// Name is the script's path inside Dir. A markdown script is not copied
	// there (mlld's harness leaves test-definition files out), so Source
	// holds its text.
	Name   string
	Source []byte
	// Dir is the fresh temporary copy of the case directory: the run's base
	// directory.
	Dir  string
	Mode guardrun.Mode
}

// RunFunc runs one script and reports what it produced. It must honour ctx.
// Tests inject fakes; Facade is the real one.
type RunFunc func(ctx context.Context, s Script) Outcome

// Options configure Run.
type Options struct {
	// CasesDir holds the case directories named by Case.Path.
	CasesDir string
	// Run executes a script; nil means Facade.
	Run RunFunc
	// Timeout bounds one script (default 10s).
	Timeout time.Duration
	// Jobs is the number of parallel workers (default GOMAXPROCS).
	Jobs int
	// StrictErrors adds the corpus README's stricter error-text check: an
	// error case whose manifest error_text is "full" must have all of
	// error.md in its message, "first-line" its first line. mlld's own rule
	// accepts any error.
	StrictErrors bool
	// SharedDir, when set, holds files copied into every script's fresh
	// directory before the case's own files (mlld's harness does this with
	// the top-level files of tests/cases/files/). See CopyShared.
	SharedDir string
}

// DefaultTimeout bounds one script when Options.Timeout is zero.
const DefaultTimeout = 10 * time.Second

// ScriptResult is the verdict on one script of a case.
type ScriptResult struct {
	Script string
	Verdict
	Elapsed time.Duration
	// errMessage is the run's error message, for the strict check.
	errMessage string
}

// Result is the verdict on one case: it passes only if all its scripts do.
type Result struct {
	Case    Case
	Pass    bool
	Reason  string
	Scripts []ScriptResult
}

// Run runs every case and returns results in the order of cases.
func Run(ctx context.Context, cases []Case, opts Options) []Result {
	if opts.Run == nil {
		opts.Run = Facade
	}
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	jobs := opts.Jobs
	if jobs <= 0 {
		jobs = runtime.GOMAXPROCS(0)
	}
	results := make([]Result, len(cases))
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < jobs && w < len(cases); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				results[i] = runCase(ctx, cases[i], opts)
			}
		}()
	}
	for i := range cases {
		next <- i
	}
	close(next)
	wg.Wait()
	return results
}

func runCase(ctx context.Context, c Case, opts Options) Result {
	res := Result{Case: c, Pass: true}
	dir := filepath.Join(opts.CasesDir, filepath.FromSlash(c.Path))
	scripts := c.Scripts
	if len(scripts) == 0 {
		entries, err := os.ReadDir(dir)
		if err != nil {
			return Result{Case: c, Reason: err.Error()}
		}
		scripts, _ = scanCaseDir(entries)
		if len(scripts) == 0 {
			return Result{Case: c, Reason: "no example*.md or example*.mld script"}
		}
	}
	for _, s := range scripts {
		sr := runScript(ctx, dir, s, opts)
		if opts.StrictErrors && sr.Pass {
			sr.Verdict = strictErrorText(dir, s, c.ErrorText, sr.Verdict, sr.errMessage)
		}
		res.Scripts = append(res.Scripts, sr)
		if !sr.Pass && res.Pass {
			res.Pass = false
			res.Reason = sr.Reason
			if len(scripts) > 1 {
				res.Reason = s + ": " + sr.Reason
			}
		}
	}
	return res
}

func runScript(ctx context.Context, caseDir, script string, opts Options) ScriptResult {
	start := time.Now()
	sr := ScriptResult{Script: script}
	done := func(v Verdict) ScriptResult {
		sr.Verdict = v
		sr.Elapsed = time.Since(start)
		return sr
	}
	exp, err := LoadExpectation(caseDir, script)
	if err != nil {
		return done(fail("reading case files: "+err.Error(), ""))
	}
	src, err := os.ReadFile(filepath.Join(caseDir, script))
	if err != nil {
		return done(fail("reading script: "+err.Error(), ""))
	}
	tmp, err := os.MkdirTemp("", "guardrun-case-")
	if err != nil {
		return done(fail("temporary directory: "+err.Error(), ""))
	}
	if opts.SharedDir != "" {
		if err := CopyShared(opts.SharedDir, tmp); err != nil {
			os.RemoveAll(tmp)
			return done(fail("copying shared files: "+err.Error(), ""))
		}
	}
	if err := CopyCase(caseDir, tmp); err != nil {
		os.RemoveAll(tmp)
		return done(fail("copying case: "+err.Error(), ""))
	}
	out, err := runWithTimeout(ctx, opts, Script{
		Name:   filepath.Join(tmp, script),
		Source: src,
		Dir:    tmp,
		Mode:   exp.Mode,
	})
	if errors.Is(err, errAbandoned) {
		// The run may still write into tmp (or start commands there):
		// removing it now would race with those writes and could be undone
		// by them, so it stays for a human to look at.
		return done(fail(fmt.Sprintf("%v; left %s", err, tmp), ""))
	}
	os.RemoveAll(tmp)
	if err != nil {
		return done(fail(err.Error(), ""))
	}
	if out.Err != nil {
		sr.errMessage = out.Err.Message
	}
	return done(checkIn(exp, out, tmp, script))
}

// abandonGrace is how long a run is waited for after its context is
// cancelled before the runner gives up on it and moves on.
var abandonGrace = 2 * time.Second

// errAbandoned marks a run that was still going abandonGrace after its
// context was cancelled.
var errAbandoned = errors.New("run ignored cancellation")

// runWithTimeout calls opts.Run under a deadline, turning a panic into an
// error and giving up on a run that ignores its context, so one bad case
// cannot stall or crash the whole suite. Unless the error wraps
// errAbandoned, the run's goroutine has returned.
func runWithTimeout(ctx context.Context, opts Options, s Script) (Outcome, error) {
	ctx, cancel := context.WithTimeout(ctx, opts.Timeout)
	defer cancel()
	type reply struct {
		out Outcome
		err error
	}
	ch := make(chan reply, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				ch <- reply{err: fmt.Errorf("panic: %v", r)}
			}
		}()
		ch <- reply{out: opts.Run(ctx, s)}
	}()
	select {
	case r := <-ch:
		return r.out, r.err
	case <-ctx.Done():
	}
	// Cancelled (deadline or caller): a run that honours ctx returns soon
	// with its own interrupt error, which the pass rule then judges.
	cancel()
	grace := time.NewTimer(abandonGrace)
	defer grace.Stop()
	select {
	case r := <-ch:
		return r.out, r.err
	case <-grace.C:
	}
	why := "cancelled"
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		why = "timed out after " + opts.Timeout.String()
	}
	return Outcome{}, fmt.Errorf("%s; %w", why, errAbandoned)
}
