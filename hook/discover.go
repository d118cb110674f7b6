package hook

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
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
// first), and the base directory of their imports and file access.
type Policies struct {
	Files []string
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
		return Policies{Files: []string{abs}, Dir: filepath.Dir(abs)}, nil
	}
	var p Policies
	user, err := UserPolicy()
	if err != nil {
		return p, err
	}
	if _, err := os.Stat(user); err == nil {
		p.Files = append(p.Files, user)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return p, fmt.Errorf("user policy %s: %v", user, err)
	}
	ws, root := findWorkspace(cwd)
	if ws != "" && ws != user {
		if err := trust.Check(ws); err != nil {
			return p, err
		}
		p.Files = append(p.Files, ws)
	}
	if len(p.Files) == 0 {
		return p, fmt.Errorf("no policy: neither %s nor a workspace %s exists; `guardrun init <agent>` writes a starter policy", user, WorkspacePolicy)
	}
	// Imports and file access are confined to one directory: the policy's
	// own, or the nearest one holding both the user's and the workspace's.
	p.Dir = filepath.Dir(p.Files[0])
	if ws != "" {
		p.Dir = root
		if len(p.Files) == 2 {
			p.Dir = commonDir(filepath.Dir(user), root)
		}
	}
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

func commonDir(a, b string) string {
	as := strings.Split(filepath.Clean(a), string(filepath.Separator))
	bs := strings.Split(filepath.Clean(b), string(filepath.Separator))
	n := 0
	for n < len(as) && n < len(bs) && as[n] == bs[n] {
		n++
	}
	if n <= 1 {
		return string(filepath.Separator)
	}
	return strings.Join(as[:n], string(filepath.Separator))
}
