package protect

import (
	"path/filepath"
	"strings"
	"testing"
)

// FuzzCovers feeds Covers and Mentions arbitrary spellings: neither may
// panic, and any name inside the config directory (no ..) is covered.
func FuzzCovers(f *testing.F) {
	fx := newFixture(f)
	for _, seed := range []string{
		"", "/", ".", "..", "~", "~/", "~x", "~/.config//guardrun/", "$HOME", "${HOME", "${HOME}/x",
		"$", "${}", "a/../../..", "src/st/../state", "src/cfg/x", "//./..//", "\x00", "~/.claude/settings.local.json",
		strings.Repeat("a/../", 50), strings.Repeat("src/st/", 20),
	} {
		f.Add(seed, fx.ws)
		f.Add(seed, "")
	}
	cfg := filepath.Join(fx.home, ".config", "guardrun")
	f.Fuzz(func(t *testing.T, p, cwd string) {
		fx.set.Covers(p, cwd)
		fx.set.Mentions(p)
		if p == "" || strings.Contains(p, "..") || strings.ContainsRune(p, 0) {
			return
		}
		if _, ok := fx.set.Covers(filepath.Join(cfg, p), cwd); !ok {
			// Inside an existing, link-free directory every name is
			// covered; nothing in the fixture's config dir is a link.
			t.Errorf("%q inside the config directory is not covered", p)
		}
	})
}

func BenchmarkCovers(b *testing.B) {
	fx := newFixture(b)
	for _, c := range []struct{ name, p string }{
		{"workspace-file", "src/main.go"},
		{"workspace-new", "build/new/out.o"},
		{"tilde-protected", "~/.config//guardrun/policy.guard"},
		{"absolute-other", "/tmp/x/y"},
		{"through-link", "src/cfg/policy.guard"},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				fx.set.Covers(c.p, fx.ws)
			}
		})
	}
}

func BenchmarkForAgent(b *testing.B) {
	fx := newFixture(b)
	b.ReportAllocs()
	for b.Loop() {
		ForAgent(noEnv, fx.home, fx.ws)
	}
}

func BenchmarkMentions(b *testing.B) {
	fx := newFixture(b)
	text := strings.Repeat("import os, sys\nprint(open('src/main.go').read())\n", 20)
	b.ReportAllocs()
	for b.Loop() {
		fx.set.Mentions(text)
	}
}
