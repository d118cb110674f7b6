// Package tokens counts the tokens of a text with the cl100k_base BPE
// encoding (tiktoken-go, offline loader: the BPE ranks are embedded in the
// binary, nothing is fetched from the network).
//
// Loading the encoding costs about 100 ms, so it happens on the first
// count only, once per process; a run that never reads a token count never
// pays for it (Initialized reports whether it happened). CountFor caches a
// count per owning value, keyed by the text it was computed for, so a
// value whose count was read once is not encoded again.
//
// tokens owns the tokenizer and its caches. It must not import any other
// guardrun package: values hand it text, it hands back numbers.
package tokens
