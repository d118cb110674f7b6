package agent

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestMaskText(t *testing.T) {
	for _, c := range []struct {
		s     string
		texts []string
		want  string
	}{
		{"no quote here", []string{logKey}, "no quote here"},
		{"Command '" + logKey + "$(true)' cannot be checked", []string{logKey + "$(true) --version"}, "Command '[masked]' cannot be checked"},
		// A quoted part of eight bytes or more, wherever it is.
		{"x " + logKey[5:13] + " y " + logKey[20:] + "!", []string{logKey}, "x [masked] y [masked]!"},
		// Seven bytes quoted from a longer text are not masked; a whole
		// short text is.
		{"a " + logKey[:7] + " b pass1 c", []string{logKey, "pass1"}, "a " + logKey[:7] + " b [masked] c"},
		// Texts under four bytes are not looked for.
		{"ls -l", []string{"ls"}, "ls -l"},
		// A masked run takes the whole characters it touches.
		{"é" + "abcdefgh" + "é", []string{"\xa9abcdefgh\xc3"}, "[masked]"},
		{"ab" + "日本語テキスト" + "cd", []string{"日本語テ"}, "ab[masked]キストcd"},
		{"", []string{logKey}, ""},
	} {
		require.Equal(t, c.want, maskText(c.s, c.texts), "maskText(%q, %q)", c.s, c.texts)
		// The same texts made long (a file's content): they are looked
		// up in an index of the reason, not searched for in it.
		long := make([]string, len(c.texts))
		for i, x := range c.texts {
			long[i] = x
			if len(x) >= minQuote {
				long[i] = strings.Repeat("\x01", directSearch) + x
			}
		}
		require.Equal(t, c.want, maskText(c.s, long), "maskText(%q, long %q)", c.s, c.texts)
	}
}

// OpenLog rotates a log that has reached its size: the full log becomes
// path.1 (replacing the older one) and a new log is started, 0600.
func TestOpenLogRotates(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state", "decisions.jsonl")
	write := func(s string) {
		f, err := OpenLog(path, 10)
		require.NoError(t, err)
		_, err = f.WriteString(s)
		require.NoError(t, err)
		require.NoError(t, f.Close())
	}
	read := func(p string) string {
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		return string(b)
	}
	write("one\n")
	write("two\n")
	require.Equal(t, "one\ntwo\n", read(path))
	write("three\n") // 8 bytes: under 10, appended
	require.Equal(t, "one\ntwo\nthree\n", read(path))
	write("four\n") // 14 bytes: rotated first
	require.Equal(t, "four\n", read(path))
	require.Equal(t, "one\ntwo\nthree\n", read(RotatedLogPath(path)))
	write("five-five\n")
	write("six\n")
	require.Equal(t, "six\n", read(path))
	require.Equal(t, "four\nfive-five\n", read(RotatedLogPath(path)))
	for _, p := range []string{path, RotatedLogPath(path)} {
		st, err := os.Stat(p)
		require.NoError(t, err)
		require.Equal(t, os.FileMode(0o600), st.Mode().Perm())
	}
	// A negative size never rotates.
	f, err := OpenLog(path, -1)
	require.NoError(t, err)
	_, err = f.WriteString(strings.Repeat("x", 100))
	require.NoError(t, err)
	require.NoError(t, f.Close())
	f, err = OpenLog(path, -1)
	require.NoError(t, err)
	require.NoError(t, f.Close())
	require.Equal(t, 104, len(read(path)))
}

// A log that cannot be rotated is still appended to: every decision is
// logged rather than every call refused.
func TestOpenLogAppendsWhenRotationFails(t *testing.T) {
	path := filepath.Join(t.TempDir(), "decisions.jsonl")
	require.NoError(t, os.WriteFile(path, []byte("full log\n"), 0o600))
	require.NoError(t, os.MkdirAll(filepath.Join(RotatedLogPath(path), "x"), 0o700))
	f, err := OpenLog(path, 4)
	require.NoError(t, err)
	_, err = f.WriteString("more\n")
	require.NoError(t, err)
	require.NoError(t, f.Close())
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, "full log\nmore\n", string(b))
}

// TestMaskTextProperty: over generated reasons and texts that share
// runs, maskText masks exactly the bytes a plain search for every run
// masks (the byte-pair filter and the index skip no quoted run).
func TestMaskTextProperty(t *testing.T) {
	r := rand.New(rand.NewPCG(42, 7))
	alpha := "abcdeé日 =_-/.0123456789XYZ"
	gen := func(n int) string {
		var b strings.Builder
		for b.Len() < n {
			b.WriteByte(alpha[r.IntN(len(alpha))])
		}
		return b.String()
	}
	for i := 0; i < 3000; i++ {
		s := gen(r.IntN(300))
		var texts []string
		for j := r.IntN(3); j >= 0; j-- {
			x := gen(r.IntN(60))
			if len(s) > 0 && r.IntN(2) == 0 {
				// Quote a part of the reason inside the text.
				a := r.IntN(len(s))
				b := min(len(s), a+r.IntN(20))
				x = x[:len(x)/2] + s[a:b] + x[len(x)/2:]
			}
			texts = append(texts, x)
		}
		require.Equal(t, naiveMask(s, texts), maskText(s, texts), "maskText(%q, %q)", s, texts)
	}
}

// naiveMask is maskText's definition, searched for run by run.
func naiveMask(s string, texts []string) string {
	cover := make([]bool, len(s))
	any := false
	mark := func(i, n int) {
		any = true
		for k := i; k < i+n; k++ {
			cover[k] = true
		}
	}
	for _, t := range texts {
		n := minQuote
		if len(t) < minWhole {
			continue
		}
		if len(t) < minQuote {
			n = len(t)
		}
		for j := 0; j+n <= len(t); j++ {
			for i := 0; i+n <= len(s); i++ {
				if s[i:i+n] == t[j:j+n] {
					mark(i, n)
				}
			}
		}
	}
	if !any {
		return s
	}
	return renderMasked(s, cover)
}
