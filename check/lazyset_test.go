package check

import "testing"

// A lazySet holds exactly its names, built once.
func TestLazySet(t *testing.T) {
	s := &lazySet{names: []string{"a", "b"}}
	if !s.has("a") || !s.has("b") || s.has("c") || s.has("") {
		t.Fatalf("has: got %v", s.all())
	}
	if m := s.all(); len(m) != 2 {
		t.Fatalf("all = %v, want a and b", m)
	}
	s.all()["c"] = true // the same map every call
	if !s.has("c") {
		t.Fatal("all built a second map")
	}
}
