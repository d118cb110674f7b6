package guardrun

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// FuzzRun compiles and runs arbitrary input in both modes with code
// disabled. Any error is fine; a recovered panic (Error.Internal) or a run
// that outlives its deadline by far is not.
func FuzzRun(f *testing.F) {
	for _, s := range []string{
		"/var @x = \"a\"\n/show @x\n",
		"var @x = [1, {a: 2}]\nshow @x.1.a\n",
		"/exe @f(a) = `<@a>`\n/show @f(\"x\") | @upper\n",
		"/when @x == 1 => show \"y\"\n",
		"/for @i in [1,2] => show @i\n",
		"/guard @g before secret = when [ * => deny \"no\" ]\n/var secret @s = \"k\"\n/show @s\n",
		"/show `unterminated\n",
		"/var @x = {{{\n",
	} {
		f.Add([]byte(s))
	}
	if paths, err := filepath.Glob("examples/*"); err == nil {
		for _, p := range paths {
			if b, err := os.ReadFile(p); err == nil {
				f.Add(b)
			}
		}
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, src []byte) {
		for _, mode := range []Mode{Markdown, Strict} {
			prg, err := Compile("fuzz.md", src, WithMode(mode))
			failOnInternal(t, err)
			if err != nil {
				continue
			}
			ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
			start := time.Now()
			_, err = prg.Run(ctx, WithoutCode(), WithDir(dir), WithOutputLimit(1<<16))
			cancel()
			failOnInternal(t, err)
			if d := time.Since(start); d > 5*time.Second {
				t.Fatalf("run ignored its deadline: took %s", d)
			}
		}
	})
}

func failOnInternal(t *testing.T, err error) {
	t.Helper()
	var e *Error
	if errors.As(err, &e) && e.Internal() {
		t.Fatalf("%s\n%v", e.Message, e.Unwrap())
	}
}
