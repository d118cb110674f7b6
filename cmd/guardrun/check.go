package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/guardrun/guardrun"
	"github.com/guardrun/guardrun/check"
	"github.com/guardrun/guardrun/format"
	"github.com/guardrun/guardrun/hook"
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
		} else if check.AgentPolicy(file) {
			// What check does not see the hook's load still refuses (an
			// opt-in naming no guard or rule, a module that cannot be
			// read): load it as the hook would, so a typo is an error
			// here, not a lock-out there.
			if err := loadAsHook(file, *user); err != nil {
				status = exitFail
				if *asJSON {
					out = append(out, loadFinding(file, err))
				} else {
					fmt.Fprint(stderr, renderLoadError(err))
				}
			}
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

// loadAsHook loads an agent policy as the hook would: alone, as the
// user's policy, or with user as a workspace policy layered under it.
func loadAsHook(file, user string) error {
	layers := []hook.Layer{{File: file}}
	if user != "" && !samePath(user, file) {
		layers = []hook.Layer{{File: user}, {File: file, Workspace: true}}
	}
	return hook.CheckLoad(context.Background(), layers...)
}

// samePath reports whether a and b name the same file.
func samePath(a, b string) bool {
	x, err1 := filepath.Abs(a)
	y, err2 := filepath.Abs(b)
	return err1 == nil && err2 == nil && x == y
}

// renderLoadError renders a policy the hook would refuse to load: the
// positioned error with its line and hint when it has one.
func renderLoadError(err error) string {
	var ge *guardrun.Error
	if errors.As(err, &ge) {
		msg := err.Error()
		if prefix, ok := strings.CutSuffix(msg, ge.Error()); ok && prefix != "" {
			return prefix + ge.Render()
		}
		return ge.Render()
	}
	return err.Error() + "\n"
}

// loadFinding is a load error as a --json finding.
func loadFinding(file string, err error) checkJSON {
	f := check.Finding{Severity: check.Error, Kind: "load", Message: err.Error()}
	var ge *guardrun.Error
	if errors.As(err, &ge) {
		f.Pos, f.Message = ge.Pos, ge.Message
		if ge.Hint != "" {
			f.Message += "; hint: " + ge.Hint
		}
	}
	if f.Pos.File == "" {
		f.Pos.File = file
	}
	return checkJSON{File: f.Pos.File, Line: f.Pos.Line, Column: f.Pos.Col, Finding: f}
}
