package interp_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/guardrun/guardrun/ast"
	"github.com/guardrun/guardrun/grammar"
	"github.com/guardrun/guardrun/interp"
	"github.com/guardrun/guardrun/tokens"
)

// noTokenCount reads every other part of .mx, on every kind of value, and
// goes through templates, methods, loops, conditions and a JS exe.
const noTokenCount = `var secret @k = "abcdefghij"
var @arr = [@k, "two"]
var @obj = { a: @k, n: 3 }
var @msg = ` + "`key: @k`" + `
exe @up(s) = js { return s.toUpperCase() }
var @shout = @up(@msg)
show ` + "`@k.mx.labels @k.mx.taint @k.mx.sources @k.mx.text @k.mx.type @k.mx.length @k.mx.tokest`" + `
show ` + "`@arr.mx.labels @arr.mx.data @obj.mx.text @obj.a.mx.labels @msg.mx.labels @shout.mx.taint`" + `
show @k.mx.labels.includes("secret")
for @x in @arr => show ` + "`@x.mx.labels @x.mx.tokest`" + `
when @k.mx.labels.includes("secret") => show @msg
show @k.mx.nosuchfield
`

// runScript parses and runs a strict-mode script.
func runScript(t *testing.T, script string) string {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "example.mld")
	doc, err := grammar.Parse(path, []byte(script), ast.Strict)
	require.NoError(t, err)
	res, err := interp.Run(context.Background(), doc, interp.Options{Dir: dir, Parse: grammar.Parse})
	require.NoError(t, err)
	return strings.TrimSpace(res.Document)
}

// inParent re-runs the calling test alone in a fresh child process and
// reports true in the parent (which then has nothing more to do); in the
// child it reports false and the test body runs there.
func inParent(t *testing.T) bool {
	t.Helper()
	if os.Getenv("GUARDRUN_TOKENS_CHILD") == t.Name() {
		return false
	}
	cmd := exec.Command(os.Args[0], "-test.run=^"+t.Name()+"$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), "GUARDRUN_TOKENS_CHILD="+t.Name())
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.Contains(t, string(out), "--- PASS: "+t.Name())
	return true
}

// The tokenizer is loaded once per process, so the assertion runs in a
// fresh child process where nothing can have counted tokens before it.
func TestTokenizerIsLoadedOnlyWhenATokenCountIsRead(t *testing.T) {
	if inParent(t) {
		return
	}
	require.False(t, tokens.Initialized(), "loaded before any script ran")

	doc := runScript(t, noTokenCount)
	require.Contains(t, doc, `["secret"]`, "the script ran")
	require.False(t, tokens.Initialized(), "a script that reads no token count loaded the tokenizer")

	// The same check must be able to fail: reading a count loads it.
	require.Equal(t, "2", runScript(t, "var @s = \"hello world\"\nshow @s.mx.tokens\n"))
	require.True(t, tokens.Initialized())
}

// Materialising the whole .mx object counts tokens (own child process for
// the same reason as above).
func TestWholeMxObjectCountsTokens(t *testing.T) {
	if inParent(t) {
		return
	}
	require.False(t, tokens.Initialized())
	doc := runScript(t, "var @s = \"hello world\"\nvar @m = @s.mx\nshow @m.tokens\n")
	require.Equal(t, "2", doc)
	require.True(t, tokens.Initialized())
}

// Runs share the tokenizer and its per-value cache; under -race this
// checks that concurrent runs reading counts do not race.
func TestTokenCountsInConcurrentRuns(t *testing.T) {
	script := "var @s = \"tiktoken is great!\"\nvar @c = @s\nfor @i in [1, 2, 3] => show `@s.mx.tokens @c.mx.tokens @s.mx.tokest`\n"
	done := make(chan string, 8)
	for range 8 {
		go func() {
			dir := t.TempDir()
			doc, err := grammar.Parse(filepath.Join(dir, "example.mld"), []byte(script), ast.Strict)
			if err != nil {
				done <- err.Error()
				return
			}
			res, err := interp.Run(context.Background(), doc, interp.Options{Dir: dir, Parse: grammar.Parse})
			if err != nil {
				done <- err.Error()
				return
			}
			done <- strings.TrimSpace(res.Document)
		}()
	}
	for range 8 {
		require.Equal(t, "6 6 5\n6 6 5\n6 6 5", <-done)
	}
}
