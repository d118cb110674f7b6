package grammar

import (
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/guardrun/guardrun/ast"
)

func FuzzScratch(f *testing.F) {
	for _, s := range append(fuzzSeeds, deepSeeds...) {
		f.Add(s, false)
	}
	f.Fuzz(func(t *testing.T, src string, strict bool) {
		done := make(chan struct{})
		go func() {
			select {
			case <-done:
			case <-time.After(3 * time.Second):
				os.WriteFile(fmt.Sprintf("/tmp/slow/%d.txt", time.Now().UnixNano()), []byte(fmt.Sprintf("%v\n%s", strict, src)), 0o644)
			}
		}()
		mode := ast.Markdown
		if strict {
			mode = ast.Strict
		}
		Parse("fuzz.md", []byte(src), mode)
		close(done)
	})
}
