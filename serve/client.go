package serve

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"syscall"
	"time"

	"github.com/guardrun/guardrun/hook"
)

// ClientOptions configure the client mode (`guardrun serve --client
// generic`): a hook command that hands its event to a running server.
type ClientOptions struct {
	// Socket is the server's socket (default DefaultSocket).
	Socket string
	// Spawn starts a server (with ServerArgs, detached, exiting when idle)
	// when none answers at Socket.
	Spawn      bool
	ServerArgs []string
	// MaxInput caps the event read on stdin (default hook.DefaultMaxInput).
	MaxInput int
	// Timeout bounds the whole exchange (default: the server's deadline
	// plus a second).
	Timeout time.Duration
}

// spawnWait is how long a client waits for a server it started to listen.
const spawnWait = 5 * time.Second

// Client reads one generic event on stdin, has the server at o.Socket
// decide it and prints the answer as `guardrun-hook generic` prints it,
// returning the exit status it would (1 with an "error" answer). It never
// fails open: a server that cannot be reached or answers nothing is the
// protocol's denial.
func Client(o ClientOptions, stdin io.Reader, stdout io.Writer) int {
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
	conn.SetDeadline(deadline)
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
func dial(o ClientOptions, deadline time.Time) (net.Conn, error) {
	c, err := net.DialTimeout("unix", o.Socket, time.Until(deadline))
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
		c, err = net.DialTimeout("unix", o.Socket, time.Until(deadline))
		if err == nil || time.Now().After(wait) {
			return c, err
		}
		time.Sleep(delay)
	}
}

// spawn starts `guardrun serve --socket SOCKET ServerArgs…` in a session
// of its own, detached from this process (it outlives it). Of two clients
// starting one at once, the second server finds the socket's lock held
// and exits.
func spawn(o ClientOptions) error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	devnull, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer devnull.Close()
	args := append([]string{"serve", "--socket", o.Socket}, o.ServerArgs...)
	cmd := exec.Command(exe, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = devnull, devnull, devnull
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return err
	}
	// Not waited for: it is reparented when this process ends.
	return errors.Join(cmd.Process.Release())
}
