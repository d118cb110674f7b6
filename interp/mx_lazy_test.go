package interp

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/guardrun/guardrun/ast"
	"github.com/guardrun/guardrun/grammar"
	"github.com/guardrun/guardrun/interp/value"
)

// TestLazyMxMatchesWholeObject runs every fixture with each member that
// evalMxField builds alone compared with the member the whole @mx object
// holds at that key: the same data, descriptor and members (so a read of
// one `@mx` field keeps exactly the labels it had). The scripts below
// reach the namespaces the fixtures may not.
func TestLazyMxMatchesWholeObject(t *testing.T) {
	var mu sync.Mutex
	var mismatches []string
	checked := map[string]int{}
	check := func(e *env, keys []string, got *value.Variable) {
		full := e.mxObject()
		key := strings.Join(keys, ".")
		want, ok := full.Member(keys[0])
		if ok && len(keys) > 1 {
			want = fieldOf(want, keys[1])
		}
		mu.Lock()
		defer mu.Unlock()
		checked[key]++
		if !ok {
			mismatches = append(mismatches, key+": not a member of the whole @mx")
			return
		}
		if !reflect.DeepEqual(want.Data, got.Data) || !want.Security.Equal(got.Security) ||
			!reflect.DeepEqual(want.Members, got.Members) || !reflect.DeepEqual(want.Items, got.Items) {
			mismatches = append(mismatches, key+": member differs from the whole @mx's")
		}
	}

	scripts := map[string]string{
		"pipe.mld": "exe @s(x) = `[@mx.try @mx.stage @mx.input @mx.lastOutput @mx.hint @mx.isPipeline @mx.pipe.stage @mx.pipe.input @mx.errors.length @mx.policy.activePolicies]`\n" +
			"var secret @k = \"v\"\nvar @r = @k | @s | @s\nshow @r\nshow @r.mx.labels\nshow `@mx.try @mx.isPipeline @mx.hint`\n",
		"guard.mld": "var secret @k = \"v\"\nexe @f(a) = `@a`\n" +
			"guard @g before secret = when [ @mx.labels.includes(\"secret\") && @mx.guard.timing == \"before\" && @mx.args.names.length >= 0 && @mx.op.labels.length >= 0 && @mx.op.metadata.params.length > 0 && !@mx.op.nothing => allow `@mx.op @mx.operation @mx.op.type @mx.operation.name @mx.taint @mx.sources @mx.guard.name @mx.args.a`\n * => allow ]\n" +
			"show @f(@k)\nshow @k\n",
		"denied.mld": "var secret @k = \"v\"\nguard @g before secret = when [ @mx.op.type == \"exe\" => deny \"no\" * => allow ]\n" +
			"exe @f(a) = when [ denied => `@mx.guard.reason @mx.labels @mx.args.a @mx.op.name @mx.op @mx.operation` * => `ok` ]\nshow @f(@k)\n",
	}
	dirs, err := filepath.Glob(filepath.Join("..", "fixtures", "*", "*"))
	require.NoError(t, err)
	for name, src := range scripts {
		dirs = append(dirs, "script:"+name)
		_ = src
	}
	for _, dir := range dirs {
		var name string
		var src []byte
		if n, ok := strings.CutPrefix(dir, "script:"); ok {
			name, src = n, []byte(scripts[n])
		} else {
			name = "example.mld"
			if src, err = os.ReadFile(filepath.Join(dir, name)); err != nil {
				name = "example.md"
				if src, err = os.ReadFile(filepath.Join(dir, name)); err != nil {
					continue
				}
			}
		}
		mode := ast.Strict
		if strings.HasSuffix(name, ".md") {
			mode = ast.Markdown
		}
		doc, err := grammar.Parse(name, src, mode)
		if err != nil {
			continue
		}
		work := t.TempDir()
		if !strings.HasPrefix(dir, "script:") {
			require.NoError(t, os.CopyFS(work, os.DirFS(dir)))
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		before := len(mismatches)
		_, _ = Run(ctx, doc, Options{Dir: work, Parse: grammar.Parse, paths: evalPaths{mxMember: check}})
		cancel()
		for _, m := range mismatches[before:] {
			t.Errorf("%s: %s", dir, m)
		}
	}
	for _, key := range []string{"op", "operation", "labels", "taint", "sources", "args", "guard",
		"op.type", "op.labels", "operation.name", "op.metadata", "op.nothing",
		"try", "stage", "input", "lastOutput", "hint", "isPipeline", "pipe", "errors", "policy"} {
		require.Positive(t, checked[key], "no read of @mx.%s was checked", key)
	}
}
