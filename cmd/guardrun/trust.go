package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"

	"github.com/guardrun/guardrun/hook"
	"github.com/guardrun/guardrun/internal/cliflags"
)

const trustUsage = `usage:
  guardrun trust [FILE]          approve a workspace policy as it is now (default .guardrun/policy.guard)
  guardrun trust --user          pin your own policy (~/.config/guardrun/policy.guard and its modules) as it is now
  guardrun trust --list          list the approved policies
  guardrun trust --revoke [FILE] withdraw an approval
`

// runTrust approves workspace policies and pins the user's own (package
// hook's TrustStore): the SHA-256 of the file and of the modules it
// imports is pinned, and the hook runs that policy only while both are
// unchanged.
func runTrust(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("guardrun trust", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, trustUsage); fs.PrintDefaults() }
	list := fs.Bool("list", false, "list the approved policies and their pins")
	revoke := fs.Bool("revoke", false, "withdraw the approval of FILE")
	user := fs.Bool("user", false, "pin (or with --revoke unpin) your own policy instead of a workspace policy")
	pos, ok := cliflags.ParseInterspersed(fs, args)
	if !ok || len(pos) > 1 || (*list && (*revoke || *user || len(pos) > 0)) || (*user && len(pos) > 0) {
		if ok {
			fs.Usage()
		}
		return exitUsage
	}
	store, err := hook.DefaultTrustStore()
	if err != nil {
		fmt.Fprintf(stderr, "guardrun trust: %v\n", err)
		return exitFail
	}
	if *list {
		pins, err := store.List()
		if err != nil {
			fmt.Fprintf(stderr, "guardrun trust: %v\n", err)
			return exitFail
		}
		files := make([]string, 0, len(pins))
		for f := range pins {
			files = append(files, f)
		}
		sort.Strings(files)
		for _, f := range files {
			p := pins[f]
			state := "approved"
			if p.User {
				state = "approved (user policy)"
			}
			if _, err := store.Verify(f, p.User); err != nil {
				state = "CHANGED since approval"
			}
			fmt.Fprintf(stdout, "%s  sha256:%s  %s %s\n", f, p.SHA256[:16], state, p.Approved.Format("2006-01-02 15:04"))
			imports := make([]string, 0, len(p.Imports))
			for i := range p.Imports {
				imports = append(imports, i)
			}
			sort.Strings(imports)
			for _, i := range imports {
				fmt.Fprintf(stdout, "    imports %s  sha256:%.16s\n", i, p.Imports[i])
			}
		}
		return exitOK
	}
	file := filepath.FromSlash(hook.WorkspacePolicy)
	if len(pos) == 1 {
		file = pos[0]
	}
	if *user {
		if file, err = hook.UserPolicy(); err != nil {
			fmt.Fprintf(stderr, "guardrun trust: %v\n", err)
			return exitFail
		}
	}
	if *revoke {
		abs, err := store.Revoke(file)
		if err != nil {
			fmt.Fprintf(stderr, "guardrun trust: %v\n", err)
			return exitFail
		}
		fmt.Fprintf(stdout, "revoked %s: the hook denies every tool call while it is there\n", abs)
		return exitOK
	}
	if err := trustable(file, *user); err != nil {
		fmt.Fprintf(stderr, "guardrun trust: not pinned: the hook would refuse every call with this policy:\n%s", renderLoadError(err))
		return exitFail
	}
	if *user {
		abs, pin, err := store.TrustUser()
		if err != nil {
			fmt.Fprintf(stderr, "guardrun trust: %v\n", err)
			return exitFail
		}
		fmt.Fprintf(stdout, "pinned your policy %s (sha256:%.16s, and %d imported module(s)): the hook runs it as it is now\n", abs, pin.SHA256, len(pin.Imports))
		return exitOK
	}
	abs, pin, err := store.Trust(file)
	if err != nil {
		fmt.Fprintf(stderr, "guardrun trust: %v\n", err)
		return exitFail
	}
	fmt.Fprintf(stdout, "approved %s (sha256:%.16s", abs, pin.SHA256)
	if n := len(pin.Imports); n > 0 {
		fmt.Fprintf(stdout, ", and %d imported module(s)", n)
	}
	fmt.Fprintln(stdout, ")")
	return exitOK
}

// trustable loads the policy about to be pinned as the hook would (a
// workspace policy under the user's, when there is one), so trust never
// pins a policy that locks the user out.
func trustable(file string, user bool) error {
	if user {
		return hook.CheckLoad(context.Background(), hook.Layer{File: file})
	}
	layers := []hook.Layer{{File: file, Workspace: true}}
	if u, err := hook.UserPolicy(); err == nil && !samePath(u, file) {
		if _, err := os.Stat(u); err == nil {
			layers = append([]hook.Layer{{File: u}}, layers...)
		}
	}
	return hook.CheckLoad(context.Background(), layers...)
}
