package hook

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// WorkspacePolicy is where a workspace keeps its policy.
const WorkspacePolicy = ".guardrun/policy.guard"

// UserPolicy is the user's policy: $XDG_CONFIG_HOME/guardrun/policy.guard
// (or ~/.config/guardrun/policy.guard).
func UserPolicy() (string, error) {
	base, err := xdg("XDG_CONFIG_HOME", ".config")
	if err != nil {
		return "", err
	}
	return filepath.Join(base, "guardrun", "policy.guard"), nil
}

// Policies are the policy files that decide an event, in order (user
// first), and each one's base directory (Dirs[i] for Files[i]): its
// imports, file access and commands are confined to it. Dir is the first
// policy's.
type Policies struct {
	Files []string
	Dirs  []string
	Dir   string
}

// Discover finds the policies for an event whose working directory is
// cwd: override alone when given (the hook command names it); else the
// user's policy, then the nearest workspace policy from cwd up to the
// repository root, which must be approved in trust. No policy at all is
// an error: guardrun without a policy would decide nothing.
func Discover(cwd, override string, trust *TrustStore) (Policies, error) {
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
		p.Files = append(p.Files, user)
		p.Dirs = append(p.Dirs, filepath.Dir(user))
	} else if !errors.Is(err, fs.ErrNotExist) {
		return p, fmt.Errorf("user policy %s: %v", user, err)
	}
	ws, root := findWorkspace(cwd)
	if ws != "" && ws != user {
		if err := trust.Check(ws); err != nil {
			return p, err
		}
		p.Files = append(p.Files, ws)
		p.Dirs = append(p.Dirs, root)
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

// findWorkspace walks from cwd up to the repository root (a directory
// holding .git) or the filesystem root, returning the nearest workspace
// policy and the directory that holds its .guardrun.
func findWorkspace(cwd string) (policy, root string) {
	if cwd == "" {
		cwd, _ = os.Getwd()
	}
	dir, err := filepath.Abs(cwd)
	if err != nil {
		return "", ""
	}
	for {
		p := filepath.Join(dir, filepath.FromSlash(WorkspacePolicy))
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			return p, dir
		}
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			return "", ""
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", ""
		}
		dir = parent
	}
}
