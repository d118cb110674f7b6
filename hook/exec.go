package hook

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/guardrun/guardrun/agent"
	"github.com/guardrun/guardrun/sandbox"
)

const execUsage = `usage: guardrun exec [flags] [--] COMMAND [ARGS...]

Runs COMMAND under a kernel sandbox (Linux Landlock) built from guardrun's
protected paths, the policy's secret paths and the session: guardrun
restricts itself, then executes COMMAND in its place. The exit status,
stdout and stderr are COMMAND's; what the sandbox refuses, COMMAND sees
as EACCES (a file) or a refused connect (the network). A profile that
cannot be built, or a kernel that cannot enforce it, runs nothing
(status 125) unless --unconfined-ok, which runs COMMAND unconfined and
says so.

profile classes (--profile, comma-separated; protect is always in):
  protect   guardrun's config, rules, trust store, state, log, binaries
            and the hosts' hook settings are never written, linked,
            renamed or removed
  secrets   the secret paths (.env*, keys, ~/.ssh, ~/.aws, ...) are never
            read
  offline   no outbound TCP connect except to --allow-port ports
  writes    writes only beneath the workspace, temp, the caches, --write
  starter   protect,secrets

flags:
`

// Exit statuses of guardrun exec's own failures (as env(1) and the
// shells use them).
const (
	ExitExecProfile  = 125 // the profile could not be built or enforced: nothing ran
	ExitExecCannot   = 126 // the command was found but could not be executed
	ExitExecNotFound = 127 // no such command
)

// Exec is `guardrun exec` and `guardrun-hook exec` (args after "exec"):
// it builds the profile, restricts this process and executes the
// command in its place, so it returns only when the command did not
// run, with the status to exit with. It lives beside the hook so that
// guardrun-hook, which starts faster, can run the commands the hook
// rewrote (confine.go).
func Exec(args []string, stderr io.Writer) int {
	fs := flag.NewFlagSet("guardrun exec", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, execUsage); fs.PrintDefaults() }
	profile := fs.String("profile", sandbox.Starter, "the profile's classes, comma-separated")
	secret := fs.Bool("secret", false, "the session holds a secret: add the offline class")
	var ports portList
	fs.Var(&ports, "allow-port", "a TCP port an offline profile may still connect to (any host, loopback included); repeatable")
	var reveal, writes execPaths
	fs.Var(&reveal, "reveal", "a secret PATH this command may read all the same (the user's opt-in, e.g. a test runner's .env); repeatable")
	fs.Var(&writes, "write", "a PATH a write-confined profile may also write beneath; repeatable")
	workspace := fs.String("workspace", "", "the workspace (default: the current directory)")
	unconfinedOK := fs.Bool("unconfined-ok", false, "where the kernel cannot confine, run the command unconfined (and say so) instead of refusing")
	verbose := fs.Bool("v", false, "print the profile on stderr before running the command")
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	argv := fs.Args()
	if len(argv) == 0 {
		fmt.Fprint(stderr, "guardrun exec: no command to run\n")
		fs.Usage()
		return exitUsage
	}
	fail := func(format string, a ...any) int {
		msg := fmt.Sprintf("guardrun exec: "+format+"; %s did not run", append(a, strconv.Quote(argv[0]))...)
		fmt.Fprintln(stderr, msg)
		logExecRefusal(argv, msg, stderr)
		return ExitExecProfile
	}
	classes, err := sandbox.ParseClasses(*profile)
	if err != nil {
		return fail("%v", err)
	}
	if *secret {
		classes = append(classes, sandbox.Offline)
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return fail("no home directory: %v", err)
	}
	ws := *workspace
	if ws == "" {
		if ws, err = os.Getwd(); err != nil {
			return fail("no current directory: %v", err)
		}
	}
	if ws, err = filepath.Abs(ws); err != nil {
		return fail("the workspace: %v", err)
	}
	path, err := exec.LookPath(argv[0])
	if err != nil {
		fmt.Fprintf(stderr, "guardrun exec: %v\n", err)
		return ExitExecNotFound
	}
	for i, r := range reveal {
		if reveal[i], err = filepath.Abs(r); err != nil {
			return fail("--reveal %s: %v", r, err)
		}
	}
	p, err := sandbox.Build(sandbox.Options{Classes: dedupe(classes), Home: home, Workspace: ws, Getenv: os.Getenv, Ports: ports, Reveal: reveal, WriteRoots: writes})
	if err != nil {
		return fail("the profile cannot be built: %v", err)
	}
	if p.WantsMountNamespace() && os.Geteuid() != 0 && !inSecondStage() {
		// Covering the workspace's secrets needs a user namespace, which
		// only a new process can enter; where none can be had, Landlock
		// denies them (the workspace root frozen), which is stricter.
		code, err := inUserNamespace(append([]string{"exec"}, args...))
		if err == nil {
			return code
		}
		if *verbose {
			fmt.Fprintf(stderr, "guardrun exec: no user namespace (%v): the workspace's secrets are denied by Landlock, its root frozen\n", err)
		}
	}
	if err := p.Restrict(); err != nil {
		if sandbox.IsUnavailable(err) && *unconfinedOK {
			fmt.Fprintf(stderr, "guardrun exec: %v; running %s UNCONFINED (--unconfined-ok)\n", err, strconv.Quote(argv[0]))
		} else if sandbox.IsUnavailable(err) {
			return fail("%v (pass --unconfined-ok to run it unconfined)", err)
		} else {
			return fail("%v", err)
		}
	}
	if *verbose {
		fmt.Fprint(stderr, p)
	}
	err = execve(path, argv, os.Environ())
	fmt.Fprintf(stderr, "guardrun exec: %s: %v\n", argv[0], err)
	return ExitExecCannot
}

// logExecRefusal puts on the decision log that a command did not run
// because its profile could not be built or enforced (a host:exec
// record, denied, with the reason); a log that cannot be written is
// said on stderr, and the command still does not run.
func logExecRefusal(argv []string, reason string, stderr io.Writer) {
	path, err := LogPath()
	if err == nil {
		err = appendLog(path, agent.Record{Time: time.Now().UTC(), Event: agent.Kind("host:exec"), Tool: "exec",
			Decision: agent.Deny, Reason: reason})
	}
	if err != nil {
		fmt.Fprintf(stderr, "guardrun exec: the refusal is not on the decision log: %v\n", err)
	}
}

func dedupe(cs []sandbox.Class) []sandbox.Class {
	var out []sandbox.Class
	seen := map[sandbox.Class]bool{}
	for _, c := range cs {
		if !seen[c] {
			seen[c] = true
			out = append(out, c)
		}
	}
	return out
}

// execPaths is a repeatable path flag.
type execPaths []string

func (p *execPaths) String() string { return strings.Join(*p, ",") }

func (p *execPaths) Set(s string) error {
	*p = append(*p, s)
	return nil
}

// portList is a repeatable TCP port flag.
type portList []uint16

func (p *portList) String() string { return fmt.Sprint(*p) }

func (p *portList) Set(s string) error {
	n, err := strconv.ParseUint(s, 10, 16)
	if err != nil || n == 0 {
		return fmt.Errorf("not a TCP port: %q", s)
	}
	*p = append(*p, uint16(n))
	return nil
}
