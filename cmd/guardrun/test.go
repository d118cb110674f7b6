package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/guardrun/guardrun/conformance"
	"github.com/guardrun/guardrun/hook"
	"github.com/guardrun/guardrun/internal/cliflags"
	"github.com/guardrun/guardrun/policytest"
)

const testUsage = `usage: guardrun test [--run PATTERN] [-v] [--json] [--coverage] [--timeout D] [--command-timeout D] [PATH...]
`

// coverageJSON is the last object of `guardrun test --json --coverage`.
type coverageJSON struct {
	Coverage struct {
		Reached int                `json:"reached"`
		Total   int                `json:"total"`
		Points  []coveragePointOut `json:"points"`
	} `json:"coverage"`
}

type coveragePointOut struct {
	File   string `json:"file"`
	Line   int    `json:"line"`
	Column int    `json:"column"`
	policytest.Point
}

// runTest is `guardrun test`: decision tests and script cases under the
// paths (default "."), exit 1 on any failure.
func runTest(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("guardrun test", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, testUsage); fs.PrintDefaults() }
	pattern := fs.String("run", "", "run only tests whose name matches this regexp")
	verbose := fs.Bool("v", false, "list passing tests too, and every coverage point")
	asJSON := fs.Bool("json", false, "print one JSON object per test (and one for coverage)")
	coverage := fs.Bool("coverage", false, "report which guards and when arms the tests reached")
	timeout := fs.Duration("timeout", conformance.DefaultTimeout, "timeout per test")
	cmdTimeout := fs.Duration("command-timeout", 0, "timeout per command a script runs (default: guardrun's)")
	paths, ok := cliflags.ParseInterspersed(fs, args)
	if !ok {
		return exitUsage
	}
	if len(paths) == 0 {
		paths = []string{"."}
	}
	opts := policytest.Options{Timeout: *timeout, CommandTimeout: *cmdTimeout}
	if *pattern != "" {
		re, err := regexp.Compile(*pattern)
		if err != nil {
			fmt.Fprintf(stderr, "guardrun test: --run: %v\n", err)
			return exitUsage
		}
		opts.Run = re
	}
	if *coverage {
		opts.Coverage = policytest.NewCoverage()
	}
	results, err := policytest.Run(context.Background(), paths, opts)
	if err != nil {
		fmt.Fprintf(stderr, "guardrun test: %v\n", err)
		return exitFail
	}
	results = append(loadResults(paths), results...)
	failed := 0
	enc := json.NewEncoder(stdout)
	enc.SetEscapeHTML(false)
	for _, r := range results {
		if !r.Pass {
			failed++
		}
		switch {
		case *asJSON:
			_ = enc.Encode(r)
		case !r.Pass:
			fmt.Fprintf(stdout, "FAIL %s (%s)\n", r.Name, where(r))
			for _, f := range r.Failures {
				fmt.Fprintln(stdout, "    "+strings.ReplaceAll(f, "\n", "\n    "))
			}
		case *verbose:
			fmt.Fprintf(stdout, "PASS %s (%s)\n", r.Name, where(r))
		}
	}
	if opts.Coverage != nil {
		reportCoverage(stdout, enc, opts.Coverage.Points(), *asJSON, *verbose)
	}
	if !*asJSON {
		fmt.Fprintf(stdout, "%d passed, %d failed\n", len(results)-failed, failed)
	}
	if failed > 0 {
		return exitFail
	}
	return exitOK
}

func where(r policytest.Result) string {
	if r.Line > 0 {
		return fmt.Sprintf("%s:%d", r.File, r.Line)
	}
	return r.File
}

func reportCoverage(stdout io.Writer, enc *json.Encoder, points []policytest.Point, asJSON, verbose bool) {
	reached := 0
	for _, p := range points {
		if p.Reached {
			reached++
		}
	}
	if asJSON {
		var out coverageJSON
		out.Coverage.Reached, out.Coverage.Total = reached, len(points)
		out.Coverage.Points = []coveragePointOut{}
		for _, p := range points {
			out.Coverage.Points = append(out.Coverage.Points, coveragePointOut{File: p.Pos.File, Line: p.Pos.Line, Column: p.Pos.Col, Point: p})
		}
		_ = enc.Encode(out)
		return
	}
	pct := 100.0
	if len(points) > 0 {
		pct = 100 * float64(reached) / float64(len(points))
	}
	fmt.Fprintf(stdout, "coverage: %d of %d guards and when arms reached (%.1f%%)\n", reached, len(points), pct)
	for _, p := range points {
		if p.Reached && !verbose {
			continue
		}
		status := "not reached"
		if p.Reached {
			status = "reached"
		}
		label := p.Label
		if p.Kind == "arm" {
			label = "arm `" + label + "`"
		}
		fmt.Fprintf(stdout, "    %s: %s: %s\n", p.Pos, label, status)
	}
}

// loadResults loads, as the hook would, the policy a tested directory
// holds (its policy.guard, the user's policy when the directory is the
// user's config, and its .guardrun/policy.guard): the rules' tests run
// against test policies, so without this a policy that locks the user
// out (a misspelt opt-in) passes every test. A failing result for each
// policy that does not load.
func loadResults(paths []string) []policytest.Result {
	var out []policytest.Result
	for _, p := range paths {
		if st, err := os.Stat(p); err != nil || !st.IsDir() {
			continue
		}
		for _, l := range []hook.Layer{{File: filepath.Join(p, "policy.guard")}, {File: filepath.Join(p, filepath.FromSlash(hook.WorkspacePolicy)), Workspace: true}} {
			if _, err := os.Stat(l.File); err != nil {
				continue
			}
			if err := hook.CheckLoad(context.Background(), l); err != nil {
				out = append(out, policytest.Result{Name: "the policy loads as the hook loads it", Kind: "load", File: l.File,
					Failures: []string{strings.TrimSuffix(renderLoadError(err), "\n") + "\n(the hook would refuse every call with this policy)"}})
			}
		}
	}
	return out
}
