package hook

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// FullCommand is the name of the full guardrun command, which links every
// engine; guardrun-hook hands it the events whose policy needs one.
const FullCommand = "guardrun"

// delegatedEnv marks a hook process started by Delegate: it must not
// delegate again (a `guardrun` that is itself a slim build would
// otherwise start itself until the deadline).
const delegatedEnv = "GUARDRUN_HOOK_DELEGATED"

// maxDelegateStderr caps what the full command's stderr may add to the
// answer.
const maxDelegateStderr = 64 << 10

// Delegate returns the Options.Delegate of a hook process started with
// args (the agent and flags after `hook`): it runs `guardrun hook ARGS…`
// with the event on stdin and returns its answer unchanged, so the host
// sees exactly what the full command says. The full command is looked
// for beside this executable, then on PATH; none found (or this process
// was itself delegated to) is an error, which Run answers with the
// protocol's denial.
func Delegate(args []string) func(ctx context.Context, event []byte) (Answer, error) {
	return func(ctx context.Context, event []byte) (Answer, error) {
		if os.Getenv(delegatedEnv) != "" {
			return Answer{}, errors.New("the guardrun it was handed to lacks the engine too")
		}
		full, err := fullCommand()
		if err != nil {
			return Answer{}, err
		}
		cmd := exec.CommandContext(ctx, full, append([]string{"hook"}, args...)...)
		cmd.Env = append(os.Environ(), delegatedEnv+"=1")
		cmd.Stdin = bytes.NewReader(event)
		var stdout bytes.Buffer
		stderr := &cappedBuffer{max: maxDelegateStderr}
		cmd.Stdout, cmd.Stderr = &stdout, stderr
		err = cmd.Run()
		var exit *exec.ExitError
		switch {
		case errors.As(err, &exit) && exit.Exited():
			// guardrun answered with a status of its protocol (Gemini's 2,
			// a usage error): pass it through.
		case err != nil:
			return Answer{}, fmt.Errorf("running %s: %v", full, err)
		}
		return Answer{Stdout: stdout.Bytes(), Stderr: stderr.String(), Code: cmd.ProcessState.ExitCode()}, nil
	}
}

// fullCommand finds the full guardrun: beside this executable first (the
// two are installed together), then on PATH. This executable itself
// never counts.
func fullCommand() (string, error) {
	self, err := os.Executable()
	if err == nil {
		self, _ = filepath.EvalSymlinks(self)
	}
	var candidates []string
	if err == nil {
		candidates = append(candidates, filepath.Join(filepath.Dir(self), FullCommand))
	}
	if p, err := exec.LookPath(FullCommand); err == nil {
		candidates = append(candidates, p)
	}
	for _, c := range candidates {
		real, err := filepath.EvalSymlinks(c)
		if err != nil || real == self {
			continue
		}
		if st, err := os.Stat(real); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
			return c, nil
		}
	}
	return "", fmt.Errorf("no %s command beside this one or on PATH (install both: go install github.com/guardrun/guardrun/cmd/...@latest)", FullCommand)
}

// cappedBuffer keeps the first max bytes written to it.
type cappedBuffer struct {
	bytes.Buffer
	max int
}

func (b *cappedBuffer) Write(p []byte) (int, error) {
	if room := b.max - b.Len(); room > 0 {
		b.Buffer.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}
