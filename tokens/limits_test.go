package tokens

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// encodeExact is tiktoken's own count, without Count's slicing.
func encodeExact(t testing.TB, text string) int {
	enc, err := load()
	require.NoError(t, err)
	return len(enc.EncodeOrdinary(text))
}

func TestCountIsExactWithoutLongRuns(t *testing.T) {
	var b strings.Builder
	words := []string{"the", "token", "count", "of", "überprüfung", "日本語の文", "12345", "x=1;", "  ", "\n\n", "don't", "!!", "\t"}
	for i := range 20000 {
		b.WriteString(words[(i*7+i/3)%len(words)])
		if i%5 != 0 {
			b.WriteByte(' ')
		}
	}
	text := b.String()
	require.Greater(t, len(text), 64<<10)
	require.Equal(t, len(text), nextCut(text), "no run is long enough to be sliced")
	n, err := Count(text)
	require.NoError(t, err)
	require.Equal(t, encodeExact(t, text), n)
}

// Without slicing each of these takes seconds (BPE is quadratic in the
// piece length); with it they must stay fast and close to the exact count.
func TestCountBoundsPathologicalRuns(t *testing.T) {
	for name, unit := range map[string]string{
		"letters":     "a",
		"spaces":      " ",
		"newlines":    " \n",
		"punctuation": "!",
		"cjk":         "語",
	} {
		t.Run(name, func(t *testing.T) {
			small := strings.Repeat(unit, 8000/len(unit))
			n, err := Count(small)
			require.NoError(t, err)
			exact := encodeExact(t, small)
			require.InDelta(t, exact, n, float64(len(small)/MaxRun+1), "sliced count of %d bytes", len(small))

			big := strings.Repeat(unit, 200000/len(unit))
			start := time.Now()
			n, err = Count(big)
			require.NoError(t, err)
			require.Positive(t, n)
			require.Less(t, time.Since(start), 2*time.Second)
		})
	}
}

func TestNextCut(t *testing.T) {
	long := strings.Repeat("a", MaxRun+10)
	require.Equal(t, MaxRun, nextCut(long))
	spaced := long[:MaxRun] + " " + long[:MaxRun]
	require.Equal(t, len(spaced), nextCut(spaced), "a space ends the letter run")
	digits := strings.Repeat("7", 5*MaxRun)
	require.Equal(t, len(digits), nextCut(digits), "digit runs are split in threes by tiktoken itself")
	cjk := strings.Repeat("語", MaxRun) // 3 bytes each
	require.Equal(t, MaxRun/3*3, nextCut(cjk), "cuts fall on rune boundaries")
}
