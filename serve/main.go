package serve

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/guardrun/guardrun/hook"
	"github.com/guardrun/guardrun/internal/cliflags"
	"github.com/guardrun/guardrun/serve/client"
)

// Usage is the command line of `guardrun serve`.
const Usage = `usage: guardrun serve [--socket PATH | --stdio] [--policy FILE] [--deadline D] [--max-input BYTES] [--unattended] [--idle D]
   or: guardrun serve --client generic [--socket PATH] [--spawn] [server flags]   (also guardrun-hook serve --client …)

Decides the generic hook protocol's events for agent frameworks in one warm
process: one JSON request per line ({"id": ID, "event": KIND, "data": {...}}),
one JSON reply per line (the answer of ` + "`guardrun-hook generic`" + ` plus "id"),
over a Unix socket (default $XDG_STATE_HOME/guardrun/serve.sock, 0600) or
stdin/stdout (--stdio). --client reads one event on stdin and prints the
server's answer, for hosts that run a hook command per event.
`

// Main is `guardrun serve ARGS…`; it returns the exit status.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("guardrun serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, Usage); fs.PrintDefaults() }
	socket := fs.String("socket", "", "the Unix socket to serve on (default "+client.SocketName+" in guardrun's state directory)")
	stdio := fs.Bool("stdio", false, "serve the requests read on stdin, replies on stdout, instead of a socket")
	policy := fs.String("policy", "", "decide with this policy only (no discovery, no trust check), as guardrun hook --policy")
	deadline := fs.Duration("deadline", hook.DefaultDeadline, "deny a request not decided within this time")
	maxInput := fs.Int("max-input", hook.DefaultMaxInput, "largest request line accepted, in bytes")
	unattended := fs.Bool("unattended", false, "nobody answers the agent's questions: answer an ask as a denial saying what needs approval (also "+hook.UnattendedEnv+"=1)")
	idle := fs.Duration("idle", 0, "exit after this long with no connection and no request (0: never)")
	if isClient(args) {
		return client.Main(args, stdin, stdout, stderr, os.Executable)
	}
	pos, ok := cliflags.ParseInterspersed(fs, args)
	if !ok {
		return 2
	}
	if len(pos) > 0 {
		fmt.Fprintf(stderr, "guardrun serve: unexpected argument %q\n", pos[0])
		fs.Usage()
		return 2
	}
	s, err := New(Config{Policy: *policy, Deadline: *deadline, MaxInput: *maxInput, Unattended: *unattended})
	if err != nil {
		fmt.Fprintln(stderr, "guardrun serve:", err)
		return 1
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	defer signal.Stop(sig)
	if *stdio {
		done := make(chan error, 1)
		go func() { done <- s.ServeConn(stdin, stdout) }()
		select {
		case err = <-done:
		case <-sig:
		}
		s.Close()
		if err != nil {
			fmt.Fprintln(stderr, "guardrun serve:", err)
			return 1
		}
		return 0
	}
	path := *socket
	if path == "" {
		if path, err = DefaultSocket(); err != nil {
			s.Close()
			fmt.Fprintln(stderr, "guardrun serve:", err)
			return 1
		}
	}
	l, err := Listen(path)
	if err != nil {
		s.Close()
		fmt.Fprintln(stderr, "guardrun serve:", err)
		if errors.Is(err, ErrServing) {
			return 3
		}
		return 1
	}
	fmt.Fprintf(stderr, "guardrun serve: listening on %s\n", path)
	done := make(chan error, 1)
	go func() { done <- s.Serve(l) }()
	var tick <-chan time.Time
	if *idle > 0 {
		t := time.NewTicker(min(*idle/4+time.Millisecond, time.Second))
		defer t.Stop()
		tick = t.C
	}
	for {
		select {
		case err = <-done:
			s.Close()
			if err != nil {
				fmt.Fprintln(stderr, "guardrun serve:", err)
				return 1
			}
			return 0
		case <-sig:
			s.Close()
			<-done
			return 0
		case <-tick:
			if s.IdleFor() >= *idle {
				s.Close()
				<-done
				return 0
			}
		}
	}
}

// isClient reports whether args ask for the client mode (--client).
func isClient(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if a == "-client" || a == "--client" || strings.HasPrefix(a, "-client=") || strings.HasPrefix(a, "--client=") {
			return true
		}
	}
	return false
}
