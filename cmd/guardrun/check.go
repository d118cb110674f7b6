package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/guardrun/guardrun"
	"github.com/guardrun/guardrun/check"
	"github.com/guardrun/guardrun/format"
	"github.com/guardrun/guardrun/internal/cliflags"
	"github.com/guardrun/guardrun/policytest"
)

const checkUsage = `usage: guardrun check [--json] [--user POLICY] FILE...
`

// checkJSON is one finding in `guardrun check --json` output.
type checkJSON struct {
	File   string `json:"file"`
	Line   int    `json:"line"`
	Column int    `json:"column"`
	check.Finding
}

// runCheck is `guardrun check`: static findings for each file, exit 1
// when any is an error (or a file does not parse).
func runCheck(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("guardrun check", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, checkUsage); fs.PrintDefaults() }
	asJSON := fs.Bool("json", false, "print the findings as one JSON array")
	user := fs.String("user", "", "check agent policies (.guard) as workspace policies layered under this user policy: its tool collections (and its modules') are in scope")
	files, ok := cliflags.ParseInterspersed(fs, args)
	if !ok {
		return exitUsage
	}
	if len(files) == 0 {
		fmt.Fprintln(stderr, "guardrun check: expected at least one FILE")
		fs.Usage()
		return exitUsage
	}
	status := exitOK
	out := []checkJSON{}
	for _, file := range files {
		src, err := os.ReadFile(file)
		if err != nil {
			fmt.Fprintf(stderr, "guardrun check: %v\n", err)
			status = exitFail
			continue
		}
		if strings.HasSuffix(file, policytest.TestSuffix) {
			// A policy test file is no script: check its form (guardrun
			// test runs it).
			if _, err := policytest.Parse(file, src); err != nil {
				fmt.Fprintf(stderr, "%v\n", err)
				status = exitFail
			}
			continue
		}
		var findings []check.Finding
		if *user != "" && check.AgentPolicy(file) {
			findings, err = checkLayered(file, src, *user)
		} else {
			findings, err = check.Source(file, src, format.ModeFor(file))
		}
		if err != nil {
			fmt.Fprint(stderr, renderSourceError(err, file, src))
			status = exitFail
			continue
		}
		if check.HasErrors(findings) {
			status = exitFail
		}
		for _, f := range findings {
			if *asJSON {
				out = append(out, checkJSON{File: f.Pos.File, Line: f.Pos.Line, Column: f.Pos.Col, Finding: f})
				continue
			}
			fmt.Fprintln(stdout, f)
		}
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if err := enc.Encode(out); err != nil {
			fmt.Fprintf(stderr, "guardrun check: %v\n", err)
			return exitFail
		}
	}
	return status
}

// checkLayered checks a workspace policy with the tool collections of the
// user policy it is layered under in scope.
func checkLayered(file string, src []byte, user string) ([]check.Finding, error) {
	prg, err := guardrun.Compile(file, src, guardrun.WithMode(guardrun.Strict))
	if err != nil {
		return nil, err
	}
	tools := append(check.ToolPatterns(user), check.ToolPatterns(file)...)
	return check.AgentDocument(prg.Document(), tools...), nil
}
