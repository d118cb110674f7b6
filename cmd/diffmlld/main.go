// Command diffmlld runs guardrun and mlld 2.0.5 (a peer command such as
// mlld-ref) side by side over mlld's documentation examples and seeded
// generated programs, and reports where they disagree.
//
//	diffmlld -ref $MLLD_REF -guardrun ./guardrun -docs DIR [-n 2000] [-seed 1]
//
// It prints a markdown report (agreement rates, disagreement categories,
// a minimal example each) and, with -save DIR, writes each category's
// minimal script with both outcomes under DIR. It exits 0 whatever the
// agreement: it measures, it does not gate.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"time"

	"github.com/guardrun/guardrun/internal/diffmlld"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("diffmlld", flag.ContinueOnError)
	fs.SetOutput(stderr)
	ref := fs.String("ref", os.Getenv("MLLD_REF"), "the reference command, run as `CMD FILE` (default $MLLD_REF)")
	ours := fs.String("guardrun", "guardrun", "the guardrun binary")
	docs := fs.String("docs", os.Getenv("MLLD_DOCS"), "mlld's docs/ folder; its fenced mlld blocks are run (default $MLLD_DOCS; empty: none)")
	n := fs.Int("n", 2000, "how many generated programs (0: none)")
	seed := fs.Int64("seed", 1, "the generator's seed")
	jobs := fs.Int("jobs", runtime.GOMAXPROCS(0), "programs run at once")
	timeout := fs.Duration("timeout", 20*time.Second, "limit per run of one implementation")
	shrinkPer := fs.Int("shrink-per", 2, "disagreements shrunk per (kind, feature) bucket")
	budget := fs.Int("shrink-budget", 40, "pairs of runs spent shrinking one script")
	save := fs.String("save", "", "write each category's minimal script and outcomes under this folder")
	report := fs.String("report", "", "also write the report to this file")
	all := fs.String("all", "", "write every disagreement (source and both outcomes) to this file")
	verbose := fs.Bool("v", false, "print each program's verdict on stderr")
	refCache := fs.String("ref-cache", os.Getenv("MLLD_REF_CACHE"), "keep the reference's outcomes in this folder between runs (default $MLLD_REF_CACHE; empty: none)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *ref == "" {
		fmt.Fprintln(stderr, "diffmlld: no reference: pass -ref or set MLLD_REF (../shared/tools/build-mlld-peer.sh builds mlld-ref)")
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	cfg := diffmlld.Config{
		Ours:         diffmlld.Guardrun(*ours, *timeout),
		Ref:          diffmlld.Mlld(*ref, *timeout),
		Jobs:         *jobs,
		ShrinkPer:    *shrinkPer,
		ShrinkBudget: *budget,
	}
	if *verbose {
		cfg.Progress = stderr
	}
	out := stdout
	if *report != "" {
		f, err := os.Create(*report)
		if err != nil {
			fmt.Fprintln(stderr, "diffmlld:", err)
			return 1
		}
		defer f.Close()
		out = io.MultiWriter(stdout, f)
	}
	// Each suite is reported as soon as it ends, so a long run that is
	// interrupted later still leaves the finished suites' figures.
	var allOut io.Writer
	if *all != "" {
		f, err := os.Create(*all)
		if err != nil {
			fmt.Fprintln(stderr, "diffmlld:", err)
			return 1
		}
		defer f.Close()
		allOut = f
	}
	finish := func(s diffmlld.Summary, results []diffmlld.Result) bool {
		if allOut != nil {
			fmt.Fprintf(allOut, "### %s\n\n", s.Name)
			diffmlld.WriteDisagreements(allOut, results)
		}
		diffmlld.WriteTable(out, s)
		fmt.Fprintf(out, "### Minimal examples: %s\n\n", s.Name)
		diffmlld.WriteExamples(out, s)
		if *save != "" {
			if err := diffmlld.SaveMinimal(*save, s); err != nil {
				fmt.Fprintln(stderr, "diffmlld:", err)
				return false
			}
		}
		return true
	}
	cache := &diffmlld.Cache{RefDir: *refCache}
	cfg.Cache = cache
	if *docs != "" {
		exs, err := diffmlld.DocExamples(*docs)
		if err != nil {
			fmt.Fprintln(stderr, "diffmlld:", err)
			return 1
		}
		var progs []diffmlld.Program
		skipped := map[string]int{}
		for _, ex := range exs {
			if ex.Skip != "" {
				skipped[ex.Skip]++
				continue
			}
			progs = append(progs, ex.Program)
		}
		fmt.Fprintf(stderr, "diffmlld: %d documentation examples, %d runnable\n", len(exs), len(progs))
		results := diffmlld.Suite(ctx, cfg, progs)
		sum := diffmlld.Summarize("docs", results, skipped)
		sum.Slug = "docs"
		if !finish(sum, results) {
			return 1
		}
	}
	if *n > 0 {
		progs := diffmlld.Generate(*seed, *n)
		fmt.Fprintf(stderr, "diffmlld: %d generated programs (seed %d)\n", len(progs), *seed)
		results := diffmlld.Suite(ctx, cfg, progs)
		sum := diffmlld.Summarize(fmt.Sprintf("generated (seed %d)", *seed), results, nil)
		sum.Slug = "gen"
		if !finish(sum, results) {
			return 1
		}
	}
	return 0
}
