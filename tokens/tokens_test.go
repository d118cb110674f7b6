package tokens

import (
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestLazyInit runs in a child process so the package-level once is
// untouched whatever order the other tests run in.
func TestLazyInit(t *testing.T) {
	if os.Getenv("TOKENS_LAZY_CHILD") == "1" {
		require.False(t, Initialized(), "importing the package must not load the tokenizer")
		n, err := Count("")
		require.NoError(t, err)
		require.Zero(t, n)
		require.False(t, Initialized(), "the empty text needs no tokenizer")
		n, err = Count("hello world")
		require.NoError(t, err)
		require.Equal(t, 2, n)
		require.True(t, Initialized())
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestLazyInit$", "-test.count=1")
	cmd.Env = append(os.Environ(), "TOKENS_LAZY_CHILD=1")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.Contains(t, string(out), "PASS")
}

// Reference counts for cl100k_base (OpenAI's tiktoken gives the same:
// "hello world" = [15339 1917], "tiktoken is great!" = [83 1609 5963 374
// 2294 0]).
func TestCount(t *testing.T) {
	for _, tc := range []struct {
		text string
		want int
	}{
		{"hello world", 2},
		{"tiktoken is great!", 6},
		{"abcdefghij", 2},           // "abcdefgh" "ij"
		{"12345678901234567890", 7}, // digits split in groups of three
		{"<|endoftext|>", 7},        // counted as text, never as the special token
		{"héllo wörld", 6},
		{"  \n\n", 1},
	} {
		n, err := Count(tc.text)
		require.NoError(t, err)
		require.Equal(t, tc.want, n, "%q", tc.text)
	}
}

func TestCountForCachesPerOwnerAndText(t *testing.T) {
	type owner struct{ s string }
	a := &owner{"one two three"}
	n, err := CountFor(a, a.s)
	require.NoError(t, err)
	require.Equal(t, 3, n)
	_, ok := memo.Load(weakKey(a))
	require.True(t, ok, "the count is cached for its owner")

	// A shallow copy given other data is another owner.
	b := *a
	b.s = "one"
	n, err = CountFor(&b, b.s)
	require.NoError(t, err)
	require.Equal(t, 1, n)

	// The same owner asked about a different text never gets the stale count.
	a.s = "one two three four five"
	n, err = CountFor(a, a.s)
	require.NoError(t, err)
	require.Equal(t, 5, n)
	runtime.KeepAlive(a)
}

func TestCountForConcurrent(t *testing.T) {
	type owner struct{ s string }
	o := &owner{strings.Repeat("lorem ipsum dolor sit amet ", 50)}
	want, err := Count(o.s)
	require.NoError(t, err)
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for i := range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			text := o.s
			if i%2 == 1 {
				text = "x"
			}
			n, err := CountFor(o, text)
			if err == nil && i%2 == 0 && n != want {
				err = errorf("got %d want %d", n, want)
			}
			if err == nil && i%2 == 1 && n != 1 {
				err = errorf("got %d for x", n)
			}
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
}

func TestCountForReleasesDeadOwners(t *testing.T) {
	type owner struct{ s string }
	count := func() int {
		n := 0
		memo.Range(func(any, any) bool { n++; return true })
		return n
	}
	before := count()
	for range 100 {
		o := &owner{"some text"}
		_, err := CountFor(o, o.s)
		require.NoError(t, err)
	}
	require.Eventually(t, func() bool {
		runtime.GC()
		return count() <= before
	}, 5e9, 1e7, "entries of collected owners are dropped")
}
