package hook

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/guardrun/guardrun/internal/xdgdir"
)

// WorkspacePolicy is where a workspace keeps its policy.
const WorkspacePolicy = ".guardrun/policy.guard"

// UserPolicy is the user's policy: $XDG_CONFIG_HOME/guardrun/policy.guard
// (or ~/.config/guardrun/policy.guard).
func UserPolicy() (string, error) {
	dir, err := xdgdir.Config()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "policy.guard"), nil
}

// Policies are the policy files that decide an event, in order (user
// first), and each one's base directory (Dirs[i] for Files[i]): its
// imports, file access and commands are confined to it. Dir is the first
// policy's. Approved holds, for discovered policies, each one as checked
// against its pin (Approved[i] for Files[i]): the bytes to load and the
// modules the load may parse (see Gate); it is nil for an override.
type Policies struct {
	Files    []string
	Dirs     []string
	Dir      string
	Approved []*Approved
	// Workspace is the session's bound project directory (see Binding),
	// "" when not bound.
	Workspace string
}

// Discover finds the policies for an event whose working directory is
// cwd: override alone when given (the hook command names it); else the
// user's policy, then the nearest workspace policy from cwd up to the
// repository root. Each must be pinned in trust and unchanged (the user's
// by guardrun init or guardrun trust --user, a workspace's by guardrun
// trust). No policy at all is an error: guardrun without a policy would
// decide nothing.
func Discover(cwd, override string, trust *TrustStore) (Policies, error) {
	return discover(Binding{Start: cwd}, override, trust)
}

// discover is Discover from a session's workspace binding: the walk for
// the workspace policy starts at b.Start and, when b.Root is set, goes up
// to b.Root whatever .git it meets on the way.
func discover(b Binding, override string, trust *TrustStore) (Policies, error) {
	if override != "" {
		abs, err := filepath.Abs(override)
		if err != nil {
			return Policies{}, err
		}
		if _, err := os.Stat(abs); err != nil {
			return Policies{}, fmt.Errorf("policy %s: %v", override, err)
		}
		return Policies{Files: []string{abs}, Dirs: []string{filepath.Dir(abs)}, Dir: filepath.Dir(abs)}, nil
	}
	var p Policies
	user, err := UserPolicy()
	if err != nil {
		return p, err
	}
	if _, err := os.Stat(user); err == nil {
		a, err := trust.verifyForLoad(user, true)
		if err != nil {
			return p, err
		}
		p.Files = append(p.Files, user)
		p.Dirs = append(p.Dirs, filepath.Dir(user))
		p.Approved = append(p.Approved, a)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return p, fmt.Errorf("user policy %s: %v", user, err)
	}
	ws, root, _ := findWorkspace(b.Start, b.Root)
	if ws != "" && ws != user {
		a, err := trust.verifyForLoad(ws, false)
		if err != nil {
			return p, err
		}
		p.Files = append(p.Files, ws)
		p.Dirs = append(p.Dirs, root)
		p.Approved = append(p.Approved, a)
	}
	if len(p.Files) == 0 {
		return p, fmt.Errorf("no policy: neither %s nor a workspace %s exists; `guardrun init <agent>` writes a starter policy", user, WorkspacePolicy)
	}
	// The user's policy is confined to its own directory, the workspace's
	// to the workspace (the directory holding .guardrun): never to a
	// common parent, which could be the whole filesystem.
	p.Dir = p.Dirs[0]
	return p, nil
}

// findWorkspace walks from start up to bound, when set, else to the
// repository root (a directory holding .git) or the filesystem root,
// returning the nearest workspace policy, the directory that holds its
// .guardrun, and end, the directory where the walk stopped (the policy's,
// the repository root's, or the filesystem root). A .git below bound does
// not stop the walk: it may have been made after the session began.
func findWorkspace(start, bound string) (policy, root, end string) {
	if start == "" {
		start, _ = os.Getwd()
	}
	dir, err := filepath.Abs(start)
	if err != nil {
		return "", "", ""
	}
	for {
		p := filepath.Join(dir, filepath.FromSlash(WorkspacePolicy))
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			return p, dir, dir
		}
		if bound != "" {
			if dir == bound {
				return "", "", dir
			}
		} else if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			return "", "", dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", "", dir
		}
		dir = parent
	}
}
