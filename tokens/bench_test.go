package tokens

import (
	"strings"
	"testing"

	"github.com/pkoukk/tiktoken-go"
	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"
)

// BenchmarkLoad is the first-use cost Count pays once per process.
func BenchmarkLoad(b *testing.B) {
	tiktoken.SetBpeLoader(tiktoken_loader.NewOfflineLoader())
	for b.Loop() {
		if _, err := tiktoken.GetEncoding(Encoding); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCount(b *testing.B) {
	for _, size := range []struct {
		name string
		text string
	}{
		{"short", "The quick brown fox jumps over the lazy dog."},
		{"1KiB", strings.Repeat("The quick brown fox jumps over the lazy dog. ", 23)},
		{"64KiB", strings.Repeat("The quick brown fox jumps over the lazy dog. ", 1490)},
	} {
		b.Run(size.name, func(b *testing.B) {
			if _, err := Count(size.text); err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(size.text)))
			for b.Loop() {
				if _, err := Count(size.text); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkCountForCached is a repeated read of one value's count.
func BenchmarkCountForCached(b *testing.B) {
	type owner struct{ s string }
	o := &owner{strings.Repeat("The quick brown fox jumps over the lazy dog. ", 23)}
	for b.Loop() {
		if _, err := CountFor(o, o.s); err != nil {
			b.Fatal(err)
		}
	}
}
