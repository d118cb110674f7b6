// Package oneproc shrinks the Go scheduler to one P when it is
// initialised. The hook commands import it for that side effect alone
// (guardrun-hook; the full guardrun too, whose main gives the Ps back to
// every command but `hook` and `exec`): a hook process decides one
// event on one goroutine, and
// dropping the second P before the other packages' inits have filled
// its allocation caches is much cheaper than dropping it in main (a
// stop-the-world that flushes those caches, ≈0.1 ms and dozens of page
// faults per call). It also turns off heap profile sampling: the first
// sample of a process walks the stack and allocates the profiler's
// bucket table, and nobody profiles a hook process.
//
// It imports only runtime, so under Go's initialisation order (packages
// sorted by import path, each initialised once its imports are) it runs
// before every package that allocates. It must never import anything
// else, and must not be imported by a library package: it changes the
// whole process.
package oneproc
