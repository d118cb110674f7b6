// Package tokens counts the tokens of a text with the cl100k_base BPE
// encoding (tiktoken-go, offline loader: the BPE ranks are embedded in the
// binary, nothing is fetched from the network).
//
// Importing the package registers its counter as the one `.mx.tokens`
// uses (value.RegisterTokenCounter), as an image decoder registers with
// image:
//
//	import _ "github.com/guardrun/guardrun/tokens"
//
// tiktoken links net/http and crypto/tls, whose package inits cost every
// process start-up time; a program that does not import this package
// (guardrun-hook) pays none of it, and a token count there fails closed
// with an error naming this import. The guardrun command imports it.
//
// Loading the encoding costs about 100 ms, so it happens on the first
// count only, once per process; a run that never reads a token count never
// pays for it (Initialized reports whether it happened). CountFor caches a
// count per owning value, keyed by the text it was computed for, so a
// value whose count was read once is not encoded again.
//
// tokens owns the tokenizer and its caches. It imports interp/value only
// to register itself; no other guardrun package.
package tokens

import "github.com/guardrun/guardrun/interp/value"

func init() { value.RegisterTokenCounter(CountFor[value.Variable]) }
