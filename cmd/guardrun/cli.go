package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/guardrun/guardrun"
)

// Exit statuses.
const (
	exitOK    = 0
	exitFail  = 1
	exitUsage = 2
)

const usage = `usage:
  guardrun [--json] [--timeout D] [--no-code] FILE
  guardrun conform [--manifest FILE] [--filter SUBSTR] [-v] [--fail-under PCT] [--jobs N] [--timeout D] CASES_DIR
`

// run is main without os.Exit, so tests can drive the whole command.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "conform" {
		return runConform(args[1:], stdout, stderr)
	}
	fs := flag.NewFlagSet("guardrun", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, usage); fs.PrintDefaults() }
	asJSON := fs.Bool("json", false, "print one JSON object with document, stdout, stderr and error")
	timeout := fs.Duration("timeout", 0, "abort the run after this long (0 = no limit)")
	noCode := fs.Bool("no-code", false, "refuse to run js/node/cmd/sh blocks")
	files, ok := parseInterspersed(fs, args)
	if !ok {
		return exitUsage
	}
	if len(files) != 1 {
		fmt.Fprintln(stderr, "guardrun: expected exactly one script file")
		fs.Usage()
		return exitUsage
	}
	return runScript(files[0], scriptFlags{json: *asJSON, timeout: *timeout, noCode: *noCode}, stdout, stderr)
}

// parseInterspersed parses flags given before or after positional
// arguments, as in `guardrun FILE --json`.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, bool) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, false
			}
			return nil, false
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, true
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

type scriptFlags struct {
	json    bool
	timeout time.Duration
	noCode  bool
}

// jsonResult is the --json output shape.
type jsonResult struct {
	Document string          `json:"document"`
	Stdout   string          `json:"stdout"`
	Stderr   string          `json:"stderr"`
	Error    *guardrun.Error `json:"error,omitempty"`
}

func runScript(file string, f scriptFlags, stdout, stderr io.Writer) int {
	ctx := context.Background()
	if f.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, f.timeout)
		defer cancel()
	}
	opts := []guardrun.RunOption{guardrun.WithDir(filepath.Dir(file))}
	if f.noCode {
		opts = append(opts, guardrun.WithoutCode())
	}
	if !f.json {
		// stderr and `output … to stdout` stream as they happen; the
		// document follows when the run ends.
		opts = append(opts, guardrun.WithStderr(stderr), guardrun.WithStdout(stdout))
	}

	res := &guardrun.Result{}
	prg, err := guardrun.CompileFile(file)
	if err == nil {
		res, err = prg.Run(ctx, opts...)
	}
	var gerr *guardrun.Error
	if err != nil && !errors.As(err, &gerr) {
		gerr = &guardrun.Error{Name: "InterpreterError", Message: err.Error()}
	}

	if f.json {
		enc := json.NewEncoder(stdout)
		enc.SetEscapeHTML(false)
		if encErr := enc.Encode(jsonResult{Document: res.Document, Stdout: res.Stdout, Stderr: res.Stderr, Error: gerr}); encErr != nil {
			fmt.Fprintf(stderr, "guardrun: %v\n", encErr)
			return exitFail
		}
	} else {
		writeDocument(stdout, res.Document)
		if gerr != nil {
			fmt.Fprint(stderr, gerr.Render())
		}
	}
	if gerr != nil {
		return exitFail
	}
	return exitOK
}

// writeDocument prints the document without the blank lines that
// directive lines leave at its edges, ending in exactly one newline.
func writeDocument(w io.Writer, doc string) {
	doc = strings.Trim(doc, "\n")
	if doc == "" {
		return
	}
	io.WriteString(w, doc+"\n")
}
