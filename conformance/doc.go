// Package conformance runs directories of mlld-format golden cases
// (example.md / expected.md / error.md / expected-stderr.md /
// expected-error.json) against guardrun and applies exactly the pass rule of
// mlld's own fixture harness, so a pass here means what a pass there means.
//
// Cases come from a manifest.tsv or, without one, from mlld's discovery rule.
// Every script runs in a fresh temporary copy of its case directory, in
// process, in parallel; results are reported in manifest order in a line
// format other tools parse: `PASS <path>` / `FAIL <path>: <reason>`, one
// `<tag>: <passed>/<total>` line per tag, then `<N> passed, <M> failed`.
package conformance
