// Package credscan finds well-known credential shapes in text (cloud
// and service tokens, private key blocks, JWTs, .netrc and .pypirc
// passwords, and generic `API_KEY=…` assignments) so that the hook can
// label what an agent read or is about to send. It owns the rule list,
// the prefilters that keep a scan of a megabyte of ordinary output well
// under a millisecond per rule, and the heuristics (placeholders,
// entropy) that keep it quiet on source code and documentation.
//
// It runs in a short-lived hook process on every tool input and output,
// so nothing is compiled or allocated at package initialisation: the
// rules are hand-written scanners keyed by literal prefixes, in the
// manner of gitleaks' keywords.
//
// It imports only the standard library and must import nothing of
// guardrun.
package credscan
