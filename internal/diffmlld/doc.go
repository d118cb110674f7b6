// Package diffmlld is a differential tester of guardrun against mlld 2.0.5
// (the reference implementation, run as an external peer command). It
// feeds both implementations the same scripts — the fenced mlld examples of
// mlld's documentation and seeded, generated programs over the language's
// productions — compares their stdout and error class, shrinks each
// disagreement to a minimal script and reports the agreement rate with a
// table of disagreement categories.
//
// The package never builds or vendors mlld: the reference is any command
// that runs `CMD FILE` in the file's directory and prints mlld's document
// on stdout (../shared/tools/build-mlld-peer.sh makes one, mlld-ref).
package diffmlld
