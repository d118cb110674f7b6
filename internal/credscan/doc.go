// Package credscan finds well-known credential shapes in text (cloud
// and service tokens, private key blocks, JWTs, .netrc, .pypirc and
// .npmrc secrets, and generic `API_KEY=…` assignments) so that the
// hook can label what an agent read or is about to send. It owns the
// rule list, the prefilters that keep a pass over a megabyte of tool
// output to a few milliseconds, and the heuristics (placeholders,
// entropy, names from code) that keep it quiet on source code and
// documentation.
//
// It runs in a short-lived hook process on every tool input and
// output, so it compiles no regular expression: every rule is a
// hand-written scanner that searches for a literal anchor, in the
// manner of gitleaks' keywords, and checks the bytes around each hit.
// Its initialisation builds a few 256-byte tables and nothing else.
//
// It imports only the standard library and must import nothing of
// guardrun.
package credscan
