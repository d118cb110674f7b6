package grammar

import (
	"math/rand"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

// naiveCol is the definition posAt must agree with: runes from the line
// start, invalid bytes counting one each.
func naiveCol(text string, off int) (line, col int) {
	start := strings.LastIndexByte(text[:off], '\n') + 1
	return strings.Count(text[:off], "\n") + 1, utf8.RuneCountInString(text[start:off]) + 1
}

func TestPosAtMatchesRuneCount(t *testing.T) {
	pieces := []string{"a", "bc ", "é", "日本", "🙂", "\xff", "\xe6\x97", "\n", "@x + 1"}
	rng := rand.New(rand.NewSource(1))
	var b strings.Builder
	for b.Len() < 20_000 {
		p := pieces[rng.Intn(len(pieces))]
		if p == "\n" && rng.Intn(20) != 0 {
			continue // mostly long lines
		}
		b.WriteString(p)
	}
	b.WriteString("\n" + strings.Repeat("x", 1000)) // a long ASCII line
	text := b.String()
	s := newSource("f", text)
	// Out of order, as the lowerer asks, and every offset once.
	offs := rng.Perm(len(text) + 1)
	for _, off := range offs {
		line, col := naiveCol(text, off)
		p := s.posAt(off)
		require.Equal(t, line, p.Line, "offset %d", off)
		require.Equal(t, col, p.Col, "offset %d", off)
		require.Equal(t, off, p.Offset)
	}
}
