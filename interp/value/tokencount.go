package value

import "sync/atomic"

// TokenCounter counts the tokens of text for `.mx.tokens`, caching the
// count per owner (see package github.com/guardrun/guardrun/tokens).
type TokenCounter func(owner *Variable, text string) (int, error)

// TokensImport is the import that links the token counter, for hints.
const TokensImport = `import _ "github.com/guardrun/guardrun/tokens"`

var tokenCounter atomic.Pointer[TokenCounter]

// RegisterTokenCounter makes count the counter of `.mx.tokens`. The
// tokenizer package calls it from its init, so a program that does not
// import it links no tokenizer (tiktoken brings net/http and crypto/tls
// with it) and a token count there fails closed instead.
func RegisterTokenCounter(count TokenCounter) {
	if count == nil {
		panic("value: RegisterTokenCounter with a nil counter")
	}
	tokenCounter.Store(&count)
}

// RegisteredTokenCounter returns the registered counter, or nil when the
// program has none.
func RegisteredTokenCounter() TokenCounter {
	if c := tokenCounter.Load(); c != nil {
		return *c
	}
	return nil
}
