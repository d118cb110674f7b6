package interp

import "github.com/guardrun/guardrun/taint"

// Thin helpers over the taint package, named for how the evaluator uses
// them.

// mergeDesc unions b into a (SPEC §4.1 merge order).
func mergeDesc(a, b taint.Descriptor) taint.Descriptor { return a.Merge(b) }

func addLabels(d taint.Descriptor, labels ...string) taint.Descriptor {
	return d.WithLabels(labels...)
}

func addTaint(d taint.Descriptor, t ...string) taint.Descriptor { return d.WithTaint(t...) }

// withoutNewSourceTaint drops the src:* taint entries of d that the input
// descriptor did not already carry; labels and other taint stay.
func withoutNewSourceTaint(d, input taint.Descriptor) taint.Descriptor {
	return d.WithoutNewSourceTaint(input)
}
