// Package taint owns the security descriptor every value carries: its data
// labels, its taint (labels plus provenance markers such as "src:js" and
// "dir:/abs"), and its sources. It defines the label kinds and the merge
// rule; nothing else.
//
// Descriptors are small immutable sets: every method returns a new
// Descriptor and never changes the slices of its receiver, so a descriptor
// can be shared by any number of values without copying.
//
// This package must not import anything of this module.
package taint
