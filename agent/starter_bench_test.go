package agent

import (
	"context"
	"path/filepath"
	"sync"
	"testing"

	"github.com/guardrun/guardrun"
	"github.com/guardrun/guardrun/ast"
)

// memCache is a parse cache in memory: the benchmark measures loading
// and deciding, not parsing (a hook process loads cached trees).
type memCache struct {
	mu sync.Mutex
	m  map[string]*ast.Document
}

func (c *memCache) Load(file string, src []byte, _ ast.Mode) *ast.Document {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.m[file+"\x00"+string(src)]
}

func (c *memCache) Store(file string, src []byte, _ ast.Mode, d *ast.Document) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.m[file+"\x00"+string(src)] = d
}

// BenchmarkStarterPolicy is what a hook process does after start-up
// with the starter policy: load it (top levels of every rule module) and
// decide one Bash call, in a memory store.
func BenchmarkStarterPolicy(b *testing.B) {
	guardrun.SetParseCache(&memCache{m: map[string]*ast.Document{}})
	defer guardrun.SetParseCache(nil)
	p, err := filepath.Abs("../rules/policy.guard")
	if err != nil {
		b.Fatal(err)
	}
	pol, err := ReadPolicies(p)
	if err != nil {
		b.Fatal(err)
	}
	pol[0].Dir = filepath.Dir(p)
	ev := Event{Kind: ToolBefore, Session: "s", Tool: "Bash", Input: map[string]any{"command": "go test ./..."}}
	b.Run("load", func(b *testing.B) {
		for b.Loop() {
			e, err := New(context.Background(), Config{Policies: pol, Store: NewMemoryStore()})
			if err != nil {
				b.Fatal(err)
			}
			e.Close()
		}
	})
	b.Run("load+decide", func(b *testing.B) {
		for b.Loop() {
			e, err := New(context.Background(), Config{Policies: pol, Store: NewMemoryStore()})
			if err != nil {
				b.Fatal(err)
			}
			if d := e.Decide(context.Background(), ev); d.Outcome != Allow {
				b.Fatalf("%s %s", d.Outcome, d.Reason)
			}
			e.Close()
		}
	})
}
