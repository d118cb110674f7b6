package agent

import "testing"

// TestPathMatcherSeesEveryPathField: a hook's path matcher looks at
// every field the tool table says names a file, so Gemini's
// absolute_path and Cursor's target_file are matched too.
func TestPathMatcherSeesEveryPathField(t *testing.T) {
	for _, in := range []map[string]any{
		{"file_path": "/w/src/a.go"}, {"absolute_path": "/w/src/a.go"}, {"target_file": "/w/src/a.go"},
		{"paths": []any{"README.md", "/w/src/a.go"}},
	} {
		if !pathMatches("/w/src/**", in) {
			t.Errorf("%v: not matched", in)
		}
	}
	if pathMatches("/w/src/**", map[string]any{"file_path": "/w/docs/a.md"}) {
		t.Error("a path outside the pattern matched")
	}
}
