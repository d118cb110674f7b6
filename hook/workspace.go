package hook

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// Binding is the workspace a session is bound to, fixed at its first
// event: Start is where the search for the workspace policy starts (the
// host's project directory when it names one, else the first event's
// cwd) and Root where that search stopped then (the repository root, the
// workspace policy's directory, or the filesystem root). Later events'
// cwd does not move it: the agent chooses its cwd (cd), and a .git it
// makes below Root later does not end the search early. Workspace is the
// session's project directory for the engine's workspace builtins and
// stale-write hashing (agent.Config.Workspace): the repository root
// enclosing Start (the nearest directory holding .git) as it was then,
// else Start.
type Binding struct {
	Start     string `json:"start"`
	Root      string `json:"root"`
	Workspace string `json:"workspace,omitempty"`
}

// projectDirEnv are the variables in which the host adapter name tells
// its hooks the project directory (hook-protocols.md); Codex and generic
// name none. (A switch, not a map: no work at package init.)
func projectDirEnv(name string) []string {
	switch name {
	case "claude":
		return []string{"CLAUDE_PROJECT_DIR"}
	case "gemini":
		return []string{"GEMINI_PROJECT_DIR", "CLAUDE_PROJECT_DIR"}
	case "cursor":
		return []string{"CURSOR_PROJECT_DIR", "CLAUDE_PROJECT_DIR"}
	}
	return nil
}

// projectDir is the host's project directory for adapter name, or "".
func projectDir(name string) string {
	for _, v := range projectDirEnv(name) {
		if d := os.Getenv(v); d != "" && filepath.IsAbs(d) {
			return filepath.Clean(d)
		}
	}
	return ""
}

// bindingMaxAge is how long a binding file is kept after it was made.
const bindingMaxAge = 30 * 24 * time.Hour

// bindingPath is the file binding session's workspace, under the state
// directory: workspaces/ and the first 32 hex digits of the SHA-256 of
// the session id (a session id is the host's text, not a file name).
func bindingPath(state, session string) string {
	h := sha256.Sum256([]byte(session))
	return filepath.Join(state, "workspaces", hex.EncodeToString(h[:16]))
}

// bindWorkspace returns the session's workspace binding, making it on the
// session's first event. Without a session id there is nothing to bind
// to: the search starts at the project directory or cwd as given.
func bindWorkspace(state, adapter, session, cwd string) (Binding, error) {
	start := projectDir(adapter)
	if start == "" {
		start = cwd
	}
	if start == "" {
		start, _ = os.Getwd()
	}
	if abs, err := filepath.Abs(start); err == nil {
		start = abs
	}
	if session == "" {
		return Binding{Start: start}, nil
	}
	path := bindingPath(state, session)
	if b, err := readBinding(path); err == nil || !errors.Is(err, fs.ErrNotExist) {
		return b, err
	}
	_, _, end := findWorkspace(start, "")
	b := Binding{Start: start, Root: end, Workspace: repoRoot(start)}
	data, err := json.Marshal(b)
	if err != nil {
		return b, err
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return b, fmt.Errorf("workspace binding: %v", err)
	}
	tmp, err := os.CreateTemp(dir, ".bind-*")
	if err != nil {
		return b, fmt.Errorf("workspace binding: %v", err)
	}
	defer os.Remove(tmp.Name())
	_, werr := tmp.Write(append(data, '\n'))
	if cerr := tmp.Close(); werr != nil || cerr != nil {
		return b, fmt.Errorf("workspace binding: %v", errors.Join(werr, cerr))
	}
	// A link never replaces: of two first events racing, one binds and
	// the other reads its binding.
	if err := os.Link(tmp.Name(), path); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return readBinding(path)
		}
		return b, fmt.Errorf("workspace binding: %v", err)
	}
	pruneBindings(dir, path)
	return b, nil
}

// repoRoot is the nearest directory from dir up holding .git, else dir.
func repoRoot(dir string) string {
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		if filepath.Dir(d) == d {
			return dir
		}
	}
}

// readBinding reads a binding file; one that does not hold a binding is
// an error naming it (fail closed: it says where the session's workspace
// is).
func readBinding(path string) (Binding, error) {
	data, _, err := readFiles.Load().ReadFile(path, maxHookFile)
	if err != nil {
		return Binding{}, err
	}
	var b Binding
	if err := json.Unmarshal(data, &b); err != nil || !filepath.IsAbs(b.Start) || (b.Root != "" && !filepath.IsAbs(b.Root)) || (b.Workspace != "" && !filepath.IsAbs(b.Workspace)) {
		return Binding{}, fmt.Errorf("workspace binding %s is corrupt, so every tool call is denied; remove it (the session's next call binds its workspace again)", path)
	}
	return b, nil
}

// pruneBindings removes binding files older than bindingMaxAge, when a
// new session binds (not on every call).
func pruneBindings(dir, keep string) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	old := time.Now().Add(-bindingMaxAge)
	for _, e := range ents {
		p := filepath.Join(dir, e.Name())
		if info, err := e.Info(); err == nil && p != keep && info.Mode().IsRegular() && info.ModTime().Before(old) {
			os.Remove(p)
		}
	}
}
