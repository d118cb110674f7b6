package interp

import (
	"context"
	"testing"

	"github.com/guardrun/guardrun/ast"
	"github.com/guardrun/guardrun/interp/value"
	"github.com/guardrun/guardrun/lang"
	"github.com/guardrun/guardrun/taint"
	"github.com/stretchr/testify/require"
)

// Every `.mx` field of the language's table (lang.ValueMxFields, which
// check reads) is one the evaluator gives some value: a loaded file with
// frontmatter, an object, a value that came through an exe, an agent
// call's argument (where it was seen: the agent engine sets its Meta).
func TestValueMxFieldsAreTheTable(t *testing.T) {
	in := newInterp(context.Background(), Options{})
	defer in.close()
	text := "---\ntitle: t\n---\nbody\n"
	file := &value.Variable{Data: text, Meta: in.fileMeta("docs/a.md", "/w/docs/a.md", text)}
	obj := value.New(&value.Object{Keys: []string{"a"}, Values: map[string]any{"a": 1.0}})
	went := &value.Variable{Data: "x", Security: taint.Descriptor{}.WithTools("up")}
	arg := &value.Variable{Data: "x", Meta: &value.Object{Keys: []string{"seenIn", "foreign"}, Values: map[string]any{"seenIn": []any{"prompt"}, "foreign": []any{}}}}
	for _, f := range lang.ValueMxFields {
		found := false
		for _, v := range []*value.Variable{file, obj, went, arg} {
			if f == "tokens" && value.RegisteredTokenCounter() == nil {
				found = true // needs the tokenizer, which this package does not link
				break
			}
			if _, ok, err := mxField(v, f, ast.Pos{}); ok && err == nil {
				found = true
				break
			}
		}
		require.True(t, found, ".mx.%s is in the table but no value has it", f)
	}
	// The whole object shows the fields of the table, and nothing else.
	for _, v := range []*value.Variable{file, obj, went, arg} {
		o, err := mxOf(v, ast.Pos{})
		if err != nil {
			continue // tokens without the tokenizer
		}
		for _, k := range o.Keys {
			require.Contains(t, lang.ValueMxFields, k, "the evaluator's .mx has %s, the table lacks it", k)
		}
	}
}
