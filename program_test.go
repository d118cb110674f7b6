package guardrun

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/guardrun/guardrun/ast"
)

// These tests need the real parser and interpreter.

func TestCompileAndRun(t *testing.T) {
	prg, err := Compile("hello.md", []byte("# Title\n/var @x = \"hi\"\n/show `@x there`\n"))
	require.NoError(t, err)
	require.Equal(t, ast.Markdown, prg.Mode())
	res, err := prg.Run(context.Background())
	require.NoError(t, err)
	require.Nil(t, res.Err)
	require.Contains(t, res.Document, "# Title")
	require.Contains(t, res.Document, "hi there")
}

func TestWithModeOverridesExtension(t *testing.T) {
	prg, err := Compile("x.md", []byte("var @x = 1\nshow @x\n"), WithMode(ast.Strict))
	require.NoError(t, err)
	require.Equal(t, ast.Strict, prg.Mode())
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

func TestProgramRunsConcurrently(t *testing.T) {
	prg, err := Compile("c.mld", []byte("var @xs = [1, 2, 3]\nfor @x in @xs => show `n: @x`\n"))
	require.NoError(t, err)
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for i := 0; i < 16; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := prg.Run(context.Background())
			if err != nil {
				errs <- err
				return
			}
			if res.Document != "n: 1\nn: 2\nn: 3\n" {
				errs <- fmt.Errorf("document %q", res.Document)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
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
