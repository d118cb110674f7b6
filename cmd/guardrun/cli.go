package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/guardrun/guardrun"
	"github.com/guardrun/guardrun/internal/cliflags"
)

// Exit statuses.
const (
	exitOK    = 0
	exitFail  = 1
	exitUsage = 2
)

// run is main without os.Exit, so tests can drive the whole command.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		switch args[0] {
		case "help":
			return runHelp(args[1:], stdout, stderr)
		case "version", "--version", "-version", "-V":
			if wantsHelp(args[1:]) {
				return runHelp([]string{"version"}, stdout, stderr)
			}
			return runVersion(stdout)
		}
		if c, ok := lookupCommand(args[0]); ok {
			if wantsHelp(args[1:]) {
				return commandHelp(c, stdout)
			}
			return c.run(args[1:], stdout, stderr)
		}
		if looksLikeCommand(args[0]) {
			unknownCommand(args[0], stderr)
			return exitUsage
		}
	}
	fs := flag.NewFlagSet("guardrun", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, topUsage()+"\nflags of running a script:\n"); fs.PrintDefaults() }
	asJSON := fs.Bool("json", false, "print one JSON object with document, stdout, stderr and error")
	timeout := fs.Duration("timeout", 0, "abort the run after this long (0 = no limit)")
	cmdTimeout := fs.Duration("command-timeout", 0, "limit for one command or code block (0 = the default, 30s)")
	dir := fs.String("dir", "", "base directory: relative paths start here, file access stays inside it, commands run here (default: the script's directory)")
	noCode := fs.Bool("no-code", false, "refuse to run js/node/cmd/sh blocks")
	var writable pathList
	fs.Var(&writable, "allow-protected-write", "let the script write PATH (relative to the base directory) although it is protected (.git, .envrc, .mlld, …); repeatable")
	var memLimit int64
	fs.Func("memory-limit", "the run's memory budget: bytes, or a number with KiB, MiB or GiB (default 512MiB)", func(s string) error {
		n, err := parseBytes(s)
		memLimit = n
		return err
	})
	explain := fs.Bool("explain", false, "print, for each denied operation, the policy rule or guard that decided it and the labels that triggered it (stderr; with --json, an \"explain\" list)")
	if wantsHelp(args) {
		fmt.Fprint(stdout, topUsage()+"\nflags of running a script:\n")
		fs.SetOutput(stdout)
		fs.PrintDefaults()
		return exitOK
	}
	file, ok := oneArgument(fs, args, stderr, "guardrun: expected exactly one script file")
	if !ok {
		return exitUsage
	}
	return runScript(file, scriptFlags{json: *asJSON, timeout: *timeout, commandTimeout: *cmdTimeout, dir: *dir, noCode: *noCode, explain: *explain, writable: writable, memoryLimit: memLimit}, stdout, stderr)
}

// parseBytes reads a size such as 1048576, 512MiB or 2GiB.
func parseBytes(s string) (int64, error) {
	units := []struct {
		suffix string
		shift  uint
	}{{"KiB", 10}, {"MiB", 20}, {"GiB", 30}, {"K", 10}, {"M", 20}, {"G", 30}, {"B", 0}}
	t := strings.TrimSpace(s)
	shift := uint(0)
	for _, u := range units {
		if strings.HasSuffix(t, u.suffix) {
			t, shift = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.shift
			break
		}
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n <= 0 || n > math.MaxInt64>>shift {
		return 0, fmt.Errorf("want a positive size such as 268435456, 256MiB or 1GiB, got %q", s)
	}
	return n << shift, nil
}

// oneArgument parses args and returns the single positional argument, or
// reports the usage problem (complaint when the count is wrong).
func oneArgument(fs *flag.FlagSet, args []string, stderr io.Writer, complaint string) (string, bool) {
	pos, ok := cliflags.ParseInterspersed(fs, args)
	if !ok {
		return "", false
	}
	if len(pos) != 1 {
		fmt.Fprintln(stderr, complaint)
		fs.Usage()
		return "", false
	}
	return pos[0], true
}

type scriptFlags struct {
	json           bool
	timeout        time.Duration
	commandTimeout time.Duration
	dir            string
	noCode         bool
	explain        bool
	// memoryLimit is the run's memory budget (0: the default).
	memoryLimit int64
	writable    []string
}

// pathList is a repeatable flag.
type pathList []string

func (p *pathList) String() string { return strings.Join(*p, ",") }

func (p *pathList) Set(s string) error {
	*p = append(*p, s)
	return nil
}

// jsonResult is the --json output shape.
type jsonResult struct {
	Document string          `json:"document"`
	Stdout   string          `json:"stdout"`
	Stderr   string          `json:"stderr"`
	Error    *guardrun.Error `json:"error,omitempty"`
	Explain  []explainJSON   `json:"explain,omitempty"`
}

// explainJSON is one --explain entry in --json output.
type explainJSON struct {
	File      string   `json:"file,omitempty"`
	Line      int      `json:"line,omitempty"`
	Column    int      `json:"column,omitempty"`
	Operation string   `json:"operation"`
	Decider   string   `json:"decider"`
	Decision  string   `json:"decision"`
	Reason    string   `json:"reason"`
	Labels    []string `json:"labels"`
	Targets   []string `json:"targets,omitempty"`
	By        string   `json:"by,omitempty"`
	Lineage   []string `json:"lineage,omitempty"`
}

func runScript(file string, f scriptFlags, stdout, stderr io.Writer) int {
	ctx := context.Background()
	if f.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, f.timeout)
		defer cancel()
	}
	dir := f.dir
	if dir == "" {
		dir = filepath.Dir(file)
	}
	opts := []guardrun.RunOption{guardrun.WithDir(dir), guardrun.WithCommandTimeout(f.commandTimeout)}
	if f.noCode {
		opts = append(opts, guardrun.WithoutCode())
	}
	if len(f.writable) > 0 {
		opts = append(opts, guardrun.WithWritableProtected(f.writable...))
	}
	if f.memoryLimit > 0 {
		opts = append(opts, guardrun.WithMemoryLimit(f.memoryLimit))
	}
	var explained []explainJSON
	if f.explain {
		opts = append(opts, guardrun.WithExplain(func(x guardrun.Explanation) {
			if f.json {
				explained = append(explained, explainJSON{File: x.Pos.File, Line: x.Pos.Line, Column: x.Pos.Col,
					Operation: x.Operation, Decider: x.Decider, Decision: explainedDecision(x), Reason: x.Reason,
					Labels: nonNil(x.Labels), Targets: x.Targets, By: x.By, Lineage: x.Lineage})
				return
			}
			fmt.Fprint(stderr, renderExplanation(x))
		}))
	}
	if !f.json {
		// Everything streams as it happens, in the order the script
		// produces it: the document and `output … to stdout` on stdout,
		// logs and warnings on stderr.
		opts = append(opts, guardrun.WithDocument(stdout), guardrun.WithStdout(stdout), guardrun.WithStderr(stderr))
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
		if encErr := enc.Encode(jsonResult{Document: res.Document, Stdout: res.Stdout, Stderr: res.Stderr, Error: gerr, Explain: explained}); encErr != nil {
			fmt.Fprintf(stderr, "guardrun: %v\n", encErr)
			return exitFail
		}
	} else if gerr != nil {
		fmt.Fprint(stderr, gerr.Render())
	}
	if gerr != nil {
		return exitFail
	}
	return exitOK
}

// explainedDecision is an explanation's decision as --explain's JSON
// writes it: the action's word, or "override" for a lifted policy
// denial.
func explainedDecision(x guardrun.Explanation) string {
	if x.Overridden() {
		return "override"
	}
	return x.Decision.String()
}

// renderExplanation is the --explain text of one decision.
func renderExplanation(x guardrun.Explanation) string {
	var b strings.Builder
	b.WriteString("[explain] ")
	if x.Pos.Line > 0 {
		b.WriteString(x.Pos.String() + " ")
	}
	b.WriteString(x.Operation)
	switch {
	case x.Overridden():
		b.WriteString(": " + x.Decider + " overridden by privileged guard " + x.By + "\n")
	case x.Decision == guardrun.Retry:
		b.WriteString(": retry requested by " + x.Decider + "\n")
	default:
		b.WriteString(": denied by " + x.Decider + "\n")
	}
	b.WriteString("    reason: " + x.Reason + "\n")
	labels := "(none)"
	if len(x.Labels) > 0 {
		labels = strings.Join(x.Labels, ", ")
	}
	b.WriteString("    labels: " + labels + "\n")
	if len(x.Targets) > 0 {
		b.WriteString("    flows to: " + strings.Join(x.Targets, ", ") + "\n")
	}
	for _, l := range x.Lineage {
		b.WriteString("    lineage: " + l + "\n")
	}
	return b.String()
}

func nonNil(xs []string) []string {
	if xs == nil {
		return []string{}
	}
	return xs
}
