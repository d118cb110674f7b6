package hook

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

func BenchmarkTmpRun(b *testing.B) {
	dir := b.TempDir()
	for _, k := range []string{"XDG_STATE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME"} {
		os.MkdirAll(filepath.Join(dir, k), 0o700)
		b.Setenv(k, filepath.Join(dir, k))
	}
	b.Setenv("HOME", dir)
	ev, _ := os.ReadFile("/tmp/hb/ev.json")
	pol, _ := filepath.Abs("../rules/policy.guard")
	astCache = NewASTCache()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		_ = 0
		a := Run(Options{Adapter: Adapters["claude"], Stdin: bytes.NewReader(ev), Policy: pol, Confine: true})
		if i == 0 {
			b.Logf("%s", a.Stdout)
		}
	}
}
