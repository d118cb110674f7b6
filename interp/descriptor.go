package interp

import (
	"strings"

	"github.com/guardrun/guardrun/interp/value"
)

// Descriptor rules used by the evaluator until the taint package owns them:
// a merge is a union in which every label is also taint.

func appendUnique(list []string, items ...string) []string {
	for _, it := range items {
		found := false
		for _, l := range list {
			if l == it {
				found = true
				break
			}
		}
		if !found {
			list = append(list, it)
		}
	}
	return list
}

// mergeDesc unions b into a: labels go to labels and taint, then taint,
// then sources (SPEC §4.1).
func mergeDesc(a, b value.Descriptor) value.Descriptor {
	out := value.Descriptor{
		Labels:  append([]string(nil), a.Labels...),
		Taint:   append([]string(nil), a.Taint...),
		Sources: append([]string(nil), a.Sources...),
	}
	out.Taint = appendUnique(out.Taint, a.Labels...)
	out.Labels = appendUnique(out.Labels, b.Labels...)
	out.Taint = appendUnique(out.Taint, b.Labels...)
	out.Taint = appendUnique(out.Taint, b.Taint...)
	out.Sources = appendUnique(out.Sources, b.Sources...)
	return out
}

func addLabels(d value.Descriptor, labels ...string) value.Descriptor {
	return mergeDesc(d, value.Descriptor{Labels: labels})
}

func addTaint(d value.Descriptor, taint ...string) value.Descriptor {
	return mergeDesc(d, value.Descriptor{Taint: taint})
}

// withoutNewSourceTaint drops the src:* taint entries of d that the input
// descriptor did not already carry; labels and other taint stay.
func withoutNewSourceTaint(d, input value.Descriptor) value.Descriptor {
	out := d
	out.Taint = nil
	for _, t := range d.Taint {
		if strings.HasPrefix(t, "src:") && !hasLabel(input.Taint, t) {
			continue
		}
		out.Taint = append(out.Taint, t)
	}
	return out
}
