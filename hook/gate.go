package hook

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/guardrun/guardrun/ast"
)

// Gate is the parse cache a hook call loads its policies through: it
// sees the exact bytes of every policy file and module the engine parses
// (guardrun.SourceChecker) and refuses any whose SHA-256 is not the one
// pinned for that path, or that no pin names, before it is parsed or run.
// So what was hashed is what runs, even if a file is swapped between the
// trust check and the load, and a module the pin walk did not foresee is
// refused rather than run unapproved. Lookups and stores go to Cache (nil:
// none) only after the check.
type Gate struct {
	Cache *ASTCache
	mu    sync.Mutex
	// modules maps a pinned path to its pin and the policy that pinned it.
	modules map[string]gated
	seen    map[string]bool
}

type gated struct {
	pin    string
	policy *Approved
}

// NewGate returns a gate admitting exactly the modules of policies.
func NewGate(cache *ASTCache, policies ...*Approved) *Gate {
	g := &Gate{Cache: cache, modules: map[string]gated{}, seen: map[string]bool{}}
	for _, p := range policies {
		for path, pin := range p.Modules {
			if _, dup := g.modules[path]; !dup {
				g.modules[path] = gated{pin, p}
			}
		}
	}
	return g
}

// CheckSource implements guardrun.SourceChecker.
func (g *Gate) CheckSource(file string, src []byte) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	m, ok := g.modules[file]
	if !ok {
		return fmt.Errorf("module %s is not pinned: no approved policy imports it as approved, so it is not loaded and every tool call is denied; review your policies, then approve them again (guardrun trust FILE, or guardrun trust --user for your own policy)", file)
	}
	if sum(src) != m.pin {
		if file == m.policy.File {
			return fmt.Errorf("%s %s changed while it was being loaded, so every tool call is denied; review it, then approve it with: %s", what(m.policy.User), file, approveCmd(m.policy.File, m.policy.User))
		}
		return fmt.Errorf("module %s imported by %s %s is new or changed since you approved it, so every tool call is denied; review the change, then approve it with: %s", file, what(m.policy.User), m.policy.File, approveCmd(m.policy.File, m.policy.User))
	}
	g.seen[file] = true
	return nil
}

// Unloaded is nil when the engine parsed every pinned module file, else
// an error naming one it did not: a module removed (or a directory
// emptied) between the trust check and the load, whose guards would be
// missing.
func (g *Gate) Unloaded() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	var left []string
	for p, m := range g.modules {
		if !g.seen[p] && m.pin != missing && !strings.HasPrefix(m.pin, dirPrefix) {
			left = append(left, p)
		}
	}
	if len(left) == 0 {
		return nil
	}
	sort.Strings(left)
	m := g.modules[left[0]]
	return fmt.Errorf("module %s, pinned for %s %s, was not loaded (removed or changed while loading?), so every tool call is denied; review the policy, then approve it with: %s", left[0], what(m.policy.User), m.policy.File, approveCmd(m.policy.File, m.policy.User))
}

// Load implements guardrun.ParseCache.
func (g *Gate) Load(file string, src []byte, mode ast.Mode) *ast.Document {
	return g.Cache.Load(file, src, mode)
}

// Store implements guardrun.ParseCache.
func (g *Gate) Store(file string, src []byte, mode ast.Mode, doc *ast.Document) {
	g.Cache.Store(file, src, mode, doc)
}
