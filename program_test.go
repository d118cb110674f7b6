package guardrun

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// These tests need the real parser and interpreter.

func TestCompileAndRun(t *testing.T) {
	prg, err := Compile("hello.md", []byte("# Title\n/var @x = \"hi\"\n/show `@x there`\n"))
	require.NoError(t, err)
	require.Equal(t, Markdown, prg.Mode())
	res, err := prg.Run(context.Background())
	require.NoError(t, err)
	require.Nil(t, res.Err)
	require.Contains(t, res.Document, "# Title")
	require.Contains(t, res.Document, "hi there")
}

func TestWithModeOverridesExtension(t *testing.T) {
	prg, err := Compile("x.md", []byte("var @x = 1\nshow @x\n"), WithMode(Strict))
	require.NoError(t, err)
	require.Equal(t, Strict, prg.Mode())
	res, err := prg.Run(context.Background())
	require.NoError(t, err)
	require.Equal(t, "1\n", res.Document)
}

func TestParseErrorIsPositioned(t *testing.T) {
	_, err := Compile("bad.mld", []byte("var @x = 1\nthis is prose\n"))
	var e *Error
	require.ErrorAs(t, err, &e)
	require.Equal(t, "ParseError", e.Name)
	require.Equal(t, 2, e.Pos.Line)
	require.Equal(t, "this is prose", e.SourceLine)
}

func TestRunErrorKeepsPartialOutput(t *testing.T) {
	prg, err := Compile("p.md", []byte("/show \"before\"\n/show @nope\n"))
	require.NoError(t, err)
	res, err := prg.Run(context.Background())
	require.Error(t, err)
	require.Same(t, res.Err, err)
	require.Contains(t, res.Document, "before")
	require.Equal(t, 2, res.Err.Pos.Line)
	require.Equal(t, "/show @nope", res.Err.SourceLine)
}

func TestStreamsAndCollectsStderr(t *testing.T) {
	prg, err := Compile("l.mld", []byte("log \"note\"\nshow \"doc\"\n"))
	require.NoError(t, err)
	var stderr bytes.Buffer
	res, err := prg.Run(context.Background(), WithStderr(&stderr))
	require.NoError(t, err)
	require.Equal(t, "note\n", stderr.String())
	require.Equal(t, "note\n", res.Stderr)
	require.Equal(t, "doc\n", res.Document)
}

func TestWithoutCodeRefusesCode(t *testing.T) {
	prg, err := Compile("c.mld", []byte("var @x = js { return 1 }\nshow @x\n"))
	require.NoError(t, err)
	_, err = prg.Run(context.Background(), WithoutCode())
	require.Error(t, err)
}

func TestRunInDirWritesThere(t *testing.T) {
	dir := t.TempDir()
	prg, err := Compile("o.mld", []byte("output \"x\" to \"out.txt\"\n"))
	require.NoError(t, err)
	_, err = prg.Run(context.Background(), WithDir(dir))
	require.NoError(t, err)
	b, err := os.ReadFile(filepath.Join(dir, "out.txt"))
	require.NoError(t, err)
	require.Contains(t, string(b), "x")
}

// concurrentScript exercises the state a Run must not share: module
// imports, js and cmd code, a retrying pipeline, file loads and file output,
// all resolved against the run's own directory.
const concurrentScript = `import { @greeting, @shout } from "./lib.mld"
exe @sum(xs) = js { return xs.reduce((a, b) => a + b, 0); }
exe @say(w) = cmd {echo @w}
exe @source() = "raw"
exe @gate(v) = when [
  @p.try < 3 => retry
  * => ` + "`@v on try @p.try`" + `
]
var @text = <data.txt>
var @piped = @source() | @gate
show @shout(@greeting)
show @sum([4, 5, 6])
show @say(@text)
show @piped
output ` + "`written @text`" + ` to "out.txt"
`

func TestProgramRunsConcurrently(t *testing.T) {
	prg, err := Compile("c.mld", []byte(concurrentScript))
	require.NoError(t, err)
	const runs = 8
	dirs := make([]string, runs)
	for i := range dirs {
		dirs[i] = t.TempDir()
		require.NoError(t, os.WriteFile(filepath.Join(dirs[i], "lib.mld"),
			[]byte(fmt.Sprintf("var @greeting = \"hola-%d\"\nexe @shout(x) = `@x!`\nexport { @greeting, @shout }\n", i)), 0o644))
		require.NoError(t, os.WriteFile(filepath.Join(dirs[i], "data.txt"), []byte(fmt.Sprintf("data-%d", i)), 0o644))
	}
	var wg sync.WaitGroup
	errs := make(chan error, runs)
	for i := range runs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			res, err := prg.Run(ctx, WithDir(dirs[i]))
			if err != nil {
				errs <- fmt.Errorf("run %d: %v", i, err)
				return
			}
			want := fmt.Sprintf("hola-%d!\n15\ndata-%d\nraw on try 3\n", i, i)
			if res.Document != want {
				errs <- fmt.Errorf("run %d: document %q, want %q", i, res.Document, want)
			}
			out, err := os.ReadFile(filepath.Join(dirs[i], "out.txt"))
			if err != nil || strings.TrimSpace(string(out)) != fmt.Sprintf("written data-%d", i) {
				errs <- fmt.Errorf("run %d: out.txt %q (%v)", i, out, err)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// Result.Stdout is the whole stdout stream, shown text included, while
// WithStdout streams only what does not go to the document.
func TestStdoutHoldsTheWholeStream(t *testing.T) {
	prg, err := Compile("s.mld", []byte("show \"shown\"\noutput \"direct\" to stdout\n"))
	require.NoError(t, err)
	var streamed bytes.Buffer
	res, err := prg.Run(context.Background(), WithStdout(&streamed))
	require.NoError(t, err)
	require.Equal(t, "shown\n", res.Document)
	require.Contains(t, res.Stdout, "shown")
	require.Contains(t, res.Stdout, "direct")
	require.Less(t, strings.Index(res.Stdout, "shown"), strings.Index(res.Stdout, "direct"), "in order")
	require.NotContains(t, streamed.String(), "shown")
	require.Contains(t, streamed.String(), "direct")
}

func TestCancelledContextInterrupts(t *testing.T) {
	prg, err := Compile("s.mld", []byte("run cmd { sleep 5 }\n"))
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err = prg.Run(ctx)
	require.Error(t, err)
	require.Less(t, time.Since(start), 3*time.Second)
}

// TestBaseDirDefaults: a program compiled from memory has no base
// directory, so without WithDir every file access, import and command
// fails instead of using the host's working directory; a CompileFile
// program's base is the script's own directory, wherever the host runs.
func TestBaseDirDefaults(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "note.txt"), []byte("from the script dir"), 0o644))
	for _, tc := range []struct{ name, src string }{
		{"load", "var @p = </etc/hostname>\nshow @p\n"},
		{"relative load", "var @p = <note.txt>\nshow @p\n"},
		{"output", "output \"planted\" to \"planted.txt\"\n"},
		{"append", "append \"planted\" to \"planted.txt\"\n"},
		{"import", "import { @x } from \"./m.mld\"\n"},
		{"command", "run cmd { echo hi }\n"},
		{"shell", "exe @f() = sh { echo hi }\nshow @f()\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			prg, err := Compile("untrusted.mld", []byte(tc.src))
			require.NoError(t, err)
			res, err := prg.Run(context.Background())
			require.Error(t, err)
			require.Contains(t, err.Error(), "no base directory: use WithDir")
			require.Equal(t, 1, res.Err.Pos.Line, "the error points at the script")
			require.NotEmpty(t, res.Err.Hint)
		})
	}
	prg, err := Compile("untrusted.mld", []byte("show \"no files\"\nexe @f(x) = js { return x + 1 }\nshow @f(1)\n"))
	require.NoError(t, err)
	res, err := prg.Run(context.Background())
	require.NoError(t, err, "a script that touches no file needs no base directory")
	require.Equal(t, "no files\n2\n", res.Document)

	script := filepath.Join(dir, "s.mld")
	require.NoError(t, os.WriteFile(script, []byte("var @p = <note.txt>\nshow @p\noutput \"x\" to \"out.txt\"\n"), 0o644))
	prg, err = CompileFile(script)
	require.NoError(t, err)
	t.Chdir(t.TempDir())
	res, err = prg.Run(context.Background())
	require.NoError(t, err)
	require.Equal(t, "from the script dir\n", res.Document)
	require.FileExists(t, filepath.Join(dir, "out.txt"))
}
