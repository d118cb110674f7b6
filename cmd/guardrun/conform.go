package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/guardrun/guardrun/conformance"
)

const conformUsage = `usage: guardrun conform [--manifest FILE] [--filter SUBSTR] [-v] [--fail-under PCT] [--strict-errors] [--files DIR] [--jobs N] [--timeout D] CASES_DIR
`

func runConform(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("guardrun conform", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, conformUsage); fs.PrintDefaults() }
	manifest := fs.String("manifest", "", "manifest.tsv listing the cases (default CASES_DIR/../manifest.tsv, else discovery)")
	filter := fs.String("filter", "", "run only cases whose path contains this")
	verbose := fs.Bool("v", false, "show a diff under each failure")
	failUnder := fs.Float64("fail-under", -1, "exit 1 when the pass percentage is below this")
	jobs := fs.Int("jobs", 0, "parallel workers (default GOMAXPROCS)")
	timeout := fs.Duration("timeout", conformance.DefaultTimeout, "timeout per script")
	strict := fs.Bool("strict-errors", false, "also require error cases' messages to contain error.md as the manifest's error_text column says")
	files := fs.String("files", "", "folder whose top-level files are copied into every case's directory first (default CASES_DIR/../files when present; \"-\" for none)")
	casesDir, ok := oneArgument(fs, args, stderr, "guardrun conform: expected exactly one CASES_DIR")
	if !ok {
		return exitUsage
	}
	if st, err := os.Stat(casesDir); err != nil || !st.IsDir() {
		fmt.Fprintf(stderr, "guardrun conform: %s is not a directory\n", casesDir)
		fs.Usage()
		return exitUsage
	}
	cases, err := conformance.Load(casesDir, *manifest)
	if err != nil {
		fmt.Fprintf(stderr, "guardrun conform: %v\n", err)
		return exitUsage
	}
	cases = conformance.Filter(cases, *filter)
	shared := *files
	switch shared {
	case "":
		shared = conformance.SharedDirFor(casesDir)
	case "-":
		shared = ""
	}
	results := conformance.Run(context.Background(), cases, conformance.Options{
		CasesDir: casesDir,
		Timeout:  *timeout,
		Jobs:     *jobs,

		StrictErrors: *strict,
		SharedDir:    shared,
	})
	sum := conformance.Report(stdout, results, *verbose)
	if *failUnder >= 0 && sum.Percent() < *failUnder {
		fmt.Fprintf(stderr, "guardrun conform: pass rate %.1f%% is below --fail-under %g%%\n", sum.Percent(), *failUnder)
		return exitFail
	}
	return exitOK
}
