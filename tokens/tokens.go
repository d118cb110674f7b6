package tokens

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"unicode"
	"unicode/utf8"
	"weak"

	"github.com/pkoukk/tiktoken-go"
	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"
)

// Encoding is the BPE encoding counts are made with. cl100k_base is the
// encoding of the GPT-4 / GPT-3.5 family and of the current OpenAI
// embedding models; it is what "token count" most commonly means.
const Encoding = "cl100k_base"

var (
	initialized atomic.Bool
	// load is run by the first count only. The loader is set here rather
	// than in init() so that importing the package costs nothing, and it
	// is always the offline one: the library's default loader downloads.
	load = sync.OnceValues(func() (*tiktoken.Tiktoken, error) {
		initialized.Store(true)
		tiktoken.SetBpeLoader(tiktoken_loader.NewOfflineLoader())
		enc, err := tiktoken.GetEncoding(Encoding)
		if err != nil {
			return nil, fmt.Errorf("token counter: loading %s: %w", Encoding, err)
		}
		return enc, nil
	})
)

// Initialized reports whether the tokenizer has been loaded (or a load was
// attempted) in this process.
func Initialized() bool { return initialized.Load() }

// Count returns the number of cl100k_base tokens in text. Special-token
// markers such as "<|endoftext|>" are counted as ordinary text: the text
// is data, not a prompt the caller assembled. The empty text is 0 tokens
// and does not load the tokenizer. Count is safe for concurrent use.
//
// The count is exactly tiktoken's unless text holds a run of more than
// MaxRun bytes of letters, or of characters that are neither letters nor
// digits (whitespace, punctuation): such a run is counted in MaxRun-byte
// slices, which can differ from tiktoken by a token or so per slice. BPE
// is quadratic in the length of a pre-tokenizer piece and a piece never
// spans more than one such run, so the slicing bounds the cost per byte
// (without it, 100 KB of spaces takes seconds to count).
func Count(text string) (int, error) {
	if text == "" {
		return 0, nil
	}
	enc, err := load()
	if err != nil {
		return 0, err
	}
	n := 0
	for len(text) > 0 {
		cut := nextCut(text)
		n += len(enc.EncodeOrdinary(text[:cut]))
		text = text[cut:]
	}
	return n, nil
}

// MaxRun is the longest run of one character class (letters; neither
// letters nor digits) that Count encodes in one piece.
const MaxRun = 1024

const (
	classLetter = iota
	classDigit
	classOther
)

func classOf(r rune) int {
	switch {
	case unicode.IsLetter(r):
		return classLetter
	case unicode.IsNumber(r):
		return classDigit
	}
	return classOther
}

// nextCut is the end of the first slice of text to encode: all of text,
// or the point where a run of one class grows past MaxRun bytes. Digit
// runs never need a cut: the pre-tokenizer splits them in threes.
func nextCut(text string) int {
	run, class := 0, -1
	for i, r := range text {
		c := classOf(r)
		if c != class {
			run, class = 0, c
		}
		size := utf8.RuneLen(r)
		if size < 0 {
			size = 1 // invalid UTF-8 is ranged over one byte at a time
		}
		run += size
		if run > MaxRun && c != classDigit && i > 0 {
			return i
		}
	}
	return len(text)
}

// entry is an immutable cached count together with the text it counts,
// so a lookup for different text can never return it.
type entry struct {
	text string
	n    int
}

// memo maps weak.Pointer[T] (of any T) to *entry. Weak keys let the owner
// be collected; a cleanup removes its entry then.
var memo sync.Map

// CountFor is Count cached per owner: the count of text is remembered for
// owner (by identity, not by value) until owner is garbage collected or
// asked about a different text. A shallow copy of the owner is a
// different owner and starts with no cached count. Safe for concurrent
// use; a nil owner is not cached.
func CountFor[T any](owner *T, text string) (int, error) {
	if owner == nil {
		return Count(text)
	}
	key := weak.Make(owner)
	if e, ok := memo.Load(key); ok && e.(*entry).text == text {
		return e.(*entry).n, nil
	}
	n, err := Count(text)
	if err != nil {
		return 0, err
	}
	if _, loaded := memo.Swap(key, &entry{text: text, n: n}); !loaded {
		runtime.AddCleanup(owner, func(k weak.Pointer[T]) { memo.Delete(k) }, key)
	}
	return n, nil
}
