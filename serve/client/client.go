package client

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/guardrun/guardrun/hook"
	"github.com/guardrun/guardrun/internal/cliflags"
)

// SocketName is the server's socket in guardrun's state directory.
const SocketName = "serve.sock"

// DefaultSocket is the server's socket: serve.sock in guardrun's state
// directory ($XDG_STATE_HOME/guardrun, or ~/.local/state/guardrun), the
// directory of the session store and the decision log it serves: one
// server per state directory.
func DefaultSocket() (string, error) {
	dir, err := hook.StateDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, SocketName), nil
}

// Options configure the client mode.
type Options struct {
	// Socket is the server's socket (default DefaultSocket).
	Socket string
	// Spawn starts a server when none answers at Socket: Server (the
	// command, `guardrun serve`, as its argv) with `--socket Socket` and
	// ServerArgs, detached, exiting when idle.
	Spawn      bool
	Server     []string
	ServerArgs []string
	// MaxInput caps the event read on stdin (default hook.DefaultMaxInput).
	MaxInput int
	// Timeout bounds the whole exchange (default: the hook's deadline
	// plus a second).
	Timeout time.Duration
}

// spawnWait is how long a client waits for a server it started to listen.
const spawnWait = 5 * time.Second

// Run reads one generic event on stdin, has the server at o.Socket
// decide it and prints the answer as `guardrun-hook generic` prints it,
// returning the exit status it would (1 with an "error" answer). It never
// fails open: a server that cannot be reached or answers nothing is the
// protocol's denial.
func Run(o Options, stdin io.Reader, stdout io.Writer) int {
	fail := func(reason string) int {
		a := hook.Adapters["generic"].Fail(nil, reason)
		stdout.Write(a.Stdout)
		return a.Code
	}
	if o.MaxInput <= 0 {
		o.MaxInput = hook.DefaultMaxInput
	}
	if o.Timeout <= 0 {
		o.Timeout = hook.DefaultDeadline + time.Second
	}
	if o.Socket == "" {
		s, err := DefaultSocket()
		if err != nil {
			return fail("decision server: " + err.Error())
		}
		o.Socket = s
	}
	event, err := io.ReadAll(io.LimitReader(stdin, int64(o.MaxInput)+1))
	if err != nil {
		return fail("cannot read the event on stdin: " + err.Error())
	}
	// One line on the wire: a pretty-printed event is compacted; a text
	// that is not JSON goes as it is, on one line, for the server to
	// refuse as a hook process refuses it.
	var line bytes.Buffer
	if json.Compact(&line, bytes.TrimSpace(event)) != nil {
		line.Reset()
		line.Write(bytes.ReplaceAll(bytes.ReplaceAll(event, []byte("\r"), []byte(" ")), []byte("\n"), []byte(" ")))
	}
	line.WriteByte('\n')
	deadline := time.Now().Add(o.Timeout)
	conn, err := dial(o, deadline)
	if err != nil {
		return fail("decision server at " + o.Socket + ": " + err.Error())
	}
	defer conn.Close()
	if _, err := conn.Write(line.Bytes()); err != nil {
		return fail("decision server: " + err.Error())
	}
	reply, err := bufio.NewReaderSize(conn, 64<<10).ReadBytes('\n')
	if err != nil {
		return fail("decision server: no answer: " + err.Error())
	}
	var ans map[string]any
	if json.Unmarshal(reply, &ans) != nil {
		return fail("decision server: unreadable answer")
	}
	stdout.Write(reply)
	if _, failed := ans["error"]; failed {
		return 1
	}
	return 0
}

// dial connects to the server, starting one first when asked and none
// answers.
func dial(o Options, deadline time.Time) (*os.File, error) {
	c, err := dialUnix(o.Socket, deadline)
	if err == nil || !o.Spawn {
		return c, err
	}
	if err := spawn(o); err != nil {
		return nil, fmt.Errorf("no server, and starting one failed: %v", err)
	}
	wait := time.Now().Add(spawnWait)
	if wait.After(deadline) {
		wait = deadline
	}
	for delay := time.Millisecond; ; delay = min(2*delay, 50*time.Millisecond) {
		c, err = dialUnix(o.Socket, deadline)
		if err == nil || time.Now().After(wait) {
			return c, err
		}
		time.Sleep(delay)
	}
}

// dialUnix connects a stream socket to path, its reads and writes bounded
// by deadline (with syscall: package net would add its start-up to every
// hook process).
func dialUnix(path string, deadline time.Time) (*os.File, error) {
	fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	if err := syscall.Connect(fd, &syscall.SockaddrUnix{Name: path}); err != nil {
		syscall.Close(fd)
		return nil, err
	}
	tv := syscall.NsecToTimeval(max(time.Until(deadline), time.Millisecond).Nanoseconds())
	for _, opt := range []int{syscall.SO_RCVTIMEO, syscall.SO_SNDTIMEO} {
		if err := syscall.SetsockoptTimeval(fd, syscall.SOL_SOCKET, opt, &tv); err != nil {
			syscall.Close(fd)
			return nil, err
		}
	}
	return os.NewFile(uintptr(fd), path), nil
}

// spawn starts the server in a session of its own, detached from this
// process (it outlives it). Of two clients starting one at once, the
// second server finds the socket's lock held and exits.
func spawn(o Options) error {
	if len(o.Server) == 0 {
		return errors.New("no guardrun to start a server with")
	}
	devnull, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer devnull.Close()
	args := append(append(append([]string(nil), o.Server[1:]...), "--socket", o.Socket), o.ServerArgs...)
	cmd := exec.Command(o.Server[0], args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = devnull, devnull, devnull
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return err
	}
	// Not waited for: it is reparented when this process ends.
	return cmd.Process.Release()
}

// Usage is the client mode's command line.
const Usage = `usage: guardrun serve --client generic [--socket PATH] [--spawn] [--policy FILE] [--deadline D] [--max-input BYTES] [--unattended] [--idle D]
   or: guardrun-hook serve --client generic [same flags]

Reads one generic hook event on stdin, has ` + "`guardrun serve`" + ` decide it and
prints the answer (and exits) as guardrun-hook generic would. --spawn starts
a server with the other flags when none answers (--idle 60s by default).
`

// Main is the client mode's command line (args after `serve`); server
// finds the guardrun to start a server with (for --spawn). A usage error
// is answered with the generic protocol's denial: a hook command must
// never be read as no objection.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer, server func() (string, error)) int {
	fs := flag.NewFlagSet("guardrun serve --client", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, Usage); fs.PrintDefaults() }
	proto := fs.String("client", "", "the protocol of the event on stdin (generic)")
	socket := fs.String("socket", "", "the server's socket (default "+SocketName+" in guardrun's state directory)")
	spawnFlag := fs.Bool("spawn", false, "start a server when none answers")
	policy := fs.String("policy", "", "the server's --policy (for --spawn)")
	deadline := fs.Duration("deadline", hook.DefaultDeadline, "the server's --deadline (for --spawn); the client waits a second more")
	maxInput := fs.Int("max-input", hook.DefaultMaxInput, "largest event accepted on stdin, in bytes (and the server's --max-input)")
	unattended := fs.Bool("unattended", false, "the server's --unattended (for --spawn)")
	idle := fs.Duration("idle", 60*time.Second, "the server's --idle (for --spawn)")
	deny := func(why string) int {
		a := hook.Adapters["generic"].Fail(nil, why)
		stdout.Write(a.Stdout)
		return a.Code
	}
	pos, ok := cliflags.ParseInterspersed(fs, args)
	if !ok || len(pos) > 0 {
		return deny("bad decision-server client command line: " + strings.Join(args, " "))
	}
	if *proto != "generic" {
		return deny(fmt.Sprintf("the decision server speaks the generic protocol only, not %q", *proto))
	}
	o := Options{Socket: *socket, Spawn: *spawnFlag, MaxInput: *maxInput, Timeout: *deadline + time.Second}
	if o.Spawn {
		full, err := server()
		if err != nil {
			return deny("no guardrun to start a decision server with: " + err.Error())
		}
		o.Server = []string{full, "serve"}
		if *policy != "" {
			o.ServerArgs = append(o.ServerArgs, "--policy", *policy)
		}
		if *unattended {
			o.ServerArgs = append(o.ServerArgs, "--unattended")
		}
		o.ServerArgs = append(o.ServerArgs, "--deadline", deadline.String(), "--max-input", strconv.Itoa(*maxInput), "--idle", idle.String())
	}
	return Run(o, stdin, stdout)
}
