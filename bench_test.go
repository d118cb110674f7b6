package guardrun

import (
	"context"
	"github.com/guardrun/guardrun/interp/guard"
	"path/filepath"
	"testing"
)

// BenchmarkRun runs each example program, compiled once, in a loop: the
// cost of one Run with fresh interpreter state.
func BenchmarkRun(b *testing.B) {
	var paths []string
	for _, pat := range []string{"examples/*.md", "examples/*.mld"} {
		m, err := filepath.Glob(pat)
		if err != nil {
			b.Fatal(err)
		}
		paths = append(paths, m...)
	}
	if len(paths) == 0 {
		b.Skip("no examples")
	}
	for _, p := range paths {
		b.Run(filepath.Base(p), func(b *testing.B) {
			prg, err := CompileFile(p)
			if err != nil {
				b.Fatal(err)
			}
			dir := b.TempDir()
			ctx := context.Background()
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := prg.Run(ctx, WithDir(dir)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkCompile measures parsing alone.
func BenchmarkCompile(b *testing.B) {
	var paths []string
	for _, pat := range []string{"examples/*.md", "examples/*.mld"} {
		m, _ := filepath.Glob(pat)
		paths = append(paths, m...)
	}
	for _, p := range paths {
		b.Run(filepath.Base(p), func(b *testing.B) {
			prg, err := CompileFile(p)
			if err != nil {
				b.Fatal(err)
			}
			src := prg.src
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := Compile(p, src); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkPathMatches decides a tool call whose guard tests the path
// against ten secret globs (perf-peers' W2 core): what one @pathMatches
// call of a loaded Machine costs.
func BenchmarkPathMatches(b *testing.B) {
	src := `var @secretGlobs = ["**/.env", "**/.env.*", "**/*.pem", "**/*.key", "**/id_rsa", "**/id_ed25519", "**/.aws/credentials", "**/.ssh/**", "**/.npmrc", "**/secrets/**"]
guard @g before op:exe = when [
  @pathMatches(@request, @secretGlobs) => deny "secret"
  * => allow
]
`
	prg, err := Compile("p.guard", []byte(src))
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	m, err := prg.Load(context.Background(), WithDir(dir), WithStateDir(b.TempDir()))
	if err != nil {
		b.Fatal(err)
	}
	defer m.Close()
	op := exeOp("Read")
	op.Vars = map[string]any{"request": filepath.Join(dir, "src/deep/dir/main.go")}
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if v := m.Before(ctx, op); v.Action != guard.Allow {
			b.Fatal(v.Reason)
		}
	}
}
