package hook

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/guardrun/guardrun/agent"
)

// Policies named on a command line are laid out here as the hook's
// discovery lays out the ones it finds (discover, loadPolicies): the
// user's policy in its own directory, a workspace policy in its
// workspace root and restricting only. `guardrun check`, `guardrun
// trust`, `guardrun test` and `guardrun log --replay` load them through
// agent.New as the hook does, so a policy the hook would refuse to load
// is refused by each of them, and a replay decides with the layers the
// hook decided with.

// Layer is one policy file as the hook layers it: the user's own policy
// first (it may lift rules), then a workspace's (it can only restrict).
type Layer struct {
	// File is the policy's path.
	File string
	// Workspace is set for a workspace policy.
	Workspace bool
}

// LayerDir is the base directory the hook gives a policy file: the
// user's policy its own directory; a workspace policy at
// ROOT/.guardrun/policy.guard the workspace ROOT (discover), any other
// file its own directory.
func LayerDir(l Layer) string {
	abs, err := filepath.Abs(l.File)
	if err != nil {
		abs = l.File
	}
	dir := filepath.Dir(abs)
	if l.Workspace && filepath.Base(dir) == filepath.Dir(filepath.FromSlash(WorkspacePolicy)) {
		return filepath.Dir(dir)
	}
	return dir
}

// ReadLayers reads the policy files of layers and lays them out as the
// hook loads them.
func ReadLayers(layers ...Layer) ([]agent.Policy, error) {
	out := make([]agent.Policy, len(layers))
	for i, l := range layers {
		abs, err := filepath.Abs(l.File)
		if err != nil {
			return nil, err
		}
		src, err := os.ReadFile(abs)
		if err != nil {
			return nil, fmt.Errorf("policy %s: %w", l.File, err)
		}
		out[i] = agent.Policy{Name: abs, Source: src, Dir: LayerDir(Layer{File: abs, Workspace: l.Workspace}), Workspace: l.Workspace}
	}
	return out, nil
}

// CheckLoad loads layers as the hook does before its first decision and
// returns what would make the hook refuse every call (a policy that does
// not compile, an unknown opt-in, a module that cannot be read, a guard
// check finds an error in), nil when they load. Loading runs each
// policy's top level, as the hook does.
func CheckLoad(ctx context.Context, layers ...Layer) error {
	policies, err := ReadLayers(layers...)
	if err != nil {
		return err
	}
	e, err := agent.New(ctx, agent.Config{Policies: policies, Dir: policies[0].Dir, Store: agent.NewMemoryStore()})
	if err != nil {
		return err
	}
	e.Close()
	return nil
}
