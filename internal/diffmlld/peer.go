package diffmlld

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// Class is the coarse class of a run's result.
type Class string

// The classes a run can end in.
const (
	OK      Class = "ok"      // no error
	Parse   Class = "parse"   // the script was rejected before running
	Runtime Class = "runtime" // an error while running
	Timeout Class = "timeout" // killed after the time limit
)

// Outcome is what one implementation did with one script.
type Outcome struct {
	Stdout string
	Stderr string
	Exit   int
	Class  Class
	// ErrName is the error's name when the implementation says it
	// (guardrun's JSON error name, mlld's error class), else "".
	ErrName string
}

// Program is one script with the files it expects beside it.
type Program struct {
	// Name identifies the program in reports (doc file and block, or gen-N).
	Name string
	// Source is the main script, run as main.mld (strict mode).
	Source string
	// Files are extra files, by slash-separated relative path.
	Files map[string]string
	// Tags name the productions a generated program exercises.
	Tags []string
	// Port, when set, marks a program that exercises a row of SPEC.md
	// where guardrun departs from mlld 2.0.5 on purpose (a "PORT:" line):
	// a disagreement that is exactly the documented one is counted as
	// deliberate, not as a failure to agree.
	Port *Port
}

// Port is a documented, deliberate difference: the SPEC row, and what each
// side is expected to do on the program.
type Port struct {
	Row       string
	Ours, Ref func(Outcome) bool
}

// Peer runs one script in a directory and reports its outcome.
type Peer interface {
	Run(ctx context.Context, dir, file string) Outcome
}

// execPeer runs a command with the script's path as its last argument.
type execPeer struct {
	argv    []string
	timeout time.Duration
	// classify turns the raw result into an Outcome's class and name.
	classify func(o *Outcome)
}

func (p execPeer) Run(ctx context.Context, dir, file string) Outcome {
	ctx, cancel := context.WithTimeout(ctx, p.timeout)
	defer cancel()
	argv := append(append([]string{}, p.argv...), file)
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "NO_COLOR=1", "MLLD_NO_COLOR=1", "FORCE_COLOR=0", "CI=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.Stdin = nil
	cmd.WaitDelay = 2 * time.Second
	err := cmd.Run()
	o := Outcome{Stdout: stdout.String(), Stderr: stderr.String()}
	var ee *exec.ExitError
	switch {
	case ctx.Err() != nil:
		o.Class, o.Exit = Timeout, -1
		return o
	case errors.As(err, &ee):
		o.Exit = ee.ExitCode()
	case err != nil:
		o.Exit, o.Class, o.ErrName = -1, Runtime, "exec: "+err.Error()
		return o
	}
	p.classify(&o)
	return o
}

// Guardrun is the guardrun CLI at bin, run as `bin --json FILE`: its JSON
// result gives the stdout stream and the error's name.
func Guardrun(bin string, timeout time.Duration) Peer {
	return execPeer{argv: []string{bin, "--json"}, timeout: timeout, classify: classifyGuardrun}
}

func classifyGuardrun(o *Outcome) {
	var res struct {
		Stdout string `json:"stdout"`
		Stderr string `json:"stderr"`
		Error  *struct {
			Name    string `json:"name"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(o.Stdout), &res); err != nil {
		o.Class, o.ErrName = Runtime, "no JSON result"
		return
	}
	o.Stdout = res.Stdout
	if res.Stderr != "" || o.Stderr == "" {
		o.Stderr = res.Stderr
	}
	o.Class = OK
	if res.Error != nil {
		o.ErrName = res.Error.Name
		o.Class = Runtime
		if strings.Contains(strings.ToLower(res.Error.Name), "parse") {
			o.Class = Parse
		}
		o.Stderr = res.Error.Message
	} else if o.Exit != 0 {
		o.Class, o.ErrName = Runtime, "exit status"
	}
}

// Mlld is the reference command at bin (mlld-ref), run as
// `bin --no-format FILE`. Without --no-format mlld's CLI reformats the
// document as markdown (a blank line between blocks, so `show "a"` and
// `show "b"` print "a\n\nb"); the unformatted document is what mlld's own
// fixture suite pins and what guardrun prints.
func Mlld(bin string, timeout time.Duration) Peer {
	return retryPeer{execPeer{argv: []string{bin, "--no-format"}, timeout: timeout, classify: classifyMlld}}
}

// noAnswer is the status scripts/mlld-server's client exits with when its
// server gave no answer (it was restarting after another run's timeout).
const noAnswer = 125

// retryPeer runs a program again when the reference gave no answer at
// all: that is the harness's failure, not an outcome of the program, and
// must not be compared or kept.
type retryPeer struct{ execPeer }

func (p retryPeer) Run(ctx context.Context, dir, file string) Outcome {
	o := p.execPeer.Run(ctx, dir, file)
	for try := 0; try < 3 && o.Exit == noAnswer && o.Stdout == "" && o.Stderr == "" && ctx.Err() == nil; try++ {
		time.Sleep(time.Second)
		o = p.execPeer.Run(ctx, dir, file)
	}
	if o.Exit == noAnswer && o.Stdout == "" && o.Stderr == "" {
		// Still nothing: reported as a timeout, which is never kept.
		o.Class = Timeout
	}
	return o
}

// ansi matches terminal colour sequences, which mlld prints even when
// its stderr is not a terminal.
var ansi = regexp.MustCompile(`\x1b\[[0-9;]*[A-Za-z]`)

// mlldErrBox is the header of mlld's error report ("━━━ mlld error ━━━").
// mlld exits 0 for errors it classes as recoverable (SPEC P14), so the
// exit status alone does not say whether the run failed.
var mlldErrBox = regexp.MustCompile(`(?m)^━+\s*mlld error\s*━+`)

// mlldErrName is the name mlld puts before an error's message
// ("  MlldParse: Parse error: …", "  VariableRedefinition: …").
var mlldErrName = regexp.MustCompile(`(?m)^\s+([A-Z][A-Za-z]*):\s`)

// mlldErrSummary heads the report of errors mlld recovered from (a `run`
// whose command fails): it prints "❌ 1 error occurred:" and the boxed
// error on stdout, carries on with the script and exits 0.
var mlldErrSummary = regexp.MustCompile(`(?m)^❌ \d+ errors? occurred:`)

func classifyMlld(o *Outcome) {
	o.Stderr = ansi.ReplaceAllString(o.Stderr, "")
	o.Stdout = ansi.ReplaceAllString(o.Stdout, "")
	o.Class = OK
	if loc := mlldErrSummary.FindStringIndex(o.Stdout); loc != nil && mlldErrBox.MatchString(o.Stdout[loc[0]:]) {
		// The report is the error's text; what the script printed
		// around it stays stdout.
		o.Stderr = o.Stdout[loc[0]:] + o.Stderr
	} else if o.Exit == 0 && !mlldErrBox.MatchString(o.Stderr) {
		return
	}
	o.Class = Runtime
	if m := mlldErrName.FindStringSubmatch(o.Stderr); m != nil {
		o.ErrName = m[1]
	}
	if strings.HasPrefix(o.ErrName, "MlldParse") || strings.Contains(o.Stderr, "Parse error") {
		o.Class = Parse
	}
}

// writeProgram lays p out in a fresh directory and returns the directory
// and the main script's path.
func writeProgram(p Program) (dir, file string, err error) {
	dir, err = os.MkdirTemp("", "diffmlld-")
	if err != nil {
		return "", "", err
	}
	for name, body := range p.Files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return dir, "", err
		}
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			return dir, "", err
		}
	}
	file = filepath.Join(dir, "main.mld")
	return dir, file, os.WriteFile(file, []byte(p.Source), 0o644)
}
