package sandbox

import (
	"fmt"
	"os"
	"runtime"

	"github.com/landlock-lsm/go-landlock/landlock"
	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// ABI is the Landlock ABI version the running kernel offers, or an
// *UnavailableError saying why there is none.
func ABI() (int, error) {
	v, err := ll.LandlockGetABIVersion()
	if err != nil {
		return 0, &UnavailableError{Reason: fmt.Sprintf("the kernel offers no Landlock (%v): built without it, too old (before 5.13), or not in the lsm= boot list", err)}
	}
	return v, nil
}

// Restrict restricts this process, all its threads and every program
// it executes afterwards to the profile (no_new_privs set, the Landlock
// ruleset enforced). It locks the calling goroutine to its thread,
// which must be the one that executes the command: the secret paths of
// the workspace are covered in that thread's mount namespace where it
// can have one of its own (see hide), and denied by Landlock otherwise.
// It fails, restricting nothing, when the kernel
// cannot enforce every class of the profile: an *UnavailableError when
// Landlock is missing or too old.
func (p *Profile) Restrict() error {
	abi, err := ABI()
	if err != nil {
		return err
	}
	if abi < 3 {
		return &UnavailableError{Reason: fmt.Sprintf("the kernel's Landlock ABI is %d; protecting files from truncation needs 3 (Linux 6.2)", abi)}
	}
	if p.Has(Offline) && abi < 4 {
		return &UnavailableError{Reason: fmt.Sprintf("the kernel's Landlock ABI is %d; the offline class needs TCP rules, ABI 4 (Linux 6.7)", abi)}
	}
	// Cover the workspace's secret paths in a mount namespace of this
	// thread, which then executes the command; where that is not
	// possible, Landlock denies them (and freezes the workspace root).
	runtime.LockOSThread()
	if h := p.hideable(); len(h) > 0 && !p.noMountNamespace {
		if err := hide(h); err == nil {
			p.plan(h)
		} else {
			p.plan(nil)
		}
	}
	// In a user namespace of its own (guardrun exec's second stage) the
	// process holds CAP_SYS_ADMIN as an ambient capability: the command
	// must not inherit it. (Root's capabilities are root's.)
	if os.Geteuid() != 0 {
		unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
	}
	fs := handledFS(abi)
	cfg := landlock.Config{HandledAccessFS: landlock.AccessFSSet(fs)}
	var rules []landlock.Rule
	for _, g := range p.grants {
		r := g.rights & fs
		if !g.dir {
			r &= fileRights
		}
		if r == 0 {
			continue
		}
		rules = append(rules, landlock.PathAccess(landlock.AccessFSSet(r), g.path).IgnoreIfMissing())
	}
	if p.Has(Offline) {
		cfg.HandledAccessNet = landlock.AccessNetSet(ll.AccessNetConnectTCP)
		for _, port := range p.Ports {
			rules = append(rules, landlock.ConnectTCP(port))
		}
	}
	if abi >= 7 {
		// The kernel's audit log then names each refusal of the command
		// (and its children): the path or port and the right withheld.
		cfg = cfg.EnableLoggingForSubprocesses()
	}
	if err := cfg.Restrict(rules...); err != nil {
		return fmt.Errorf("enforcing the Landlock ruleset: %w", err)
	}
	if p.Has(Offline) {
		// Landlock has set no_new_privs on every thread.
		return denySockets()
	}
	return nil
}
