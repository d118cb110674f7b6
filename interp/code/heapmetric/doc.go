// Package heapmetric makes the memory watches of package code read the
// heap through runtime/metrics, which does not stop the world, instead of
// runtime.ReadMemStats, which does. The JavaScript engine (package js)
// imports it, since a JS block's heap is sampled from its first
// millisecond; any program may import it for its side effect.
//
// It imports only runtime/metrics and interp/code. The hook command
// must not link it (hook's TestSlimHookLinksNoEngine checks): its package
// init is paid by every process, and a hook process never samples.
package heapmetric
