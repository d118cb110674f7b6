package interp

import (
	"strings"

	"github.com/guardrun/guardrun/taint"
)

// applyLabelMods applies label modifications (SPEC §4.6) to d: `name` adds
// a label, `!name` removes one, `name!` (`trusted!`) adds it with
// privilege — removing `untrusted` — and `clear!` removes every label but
// source markers. Removals need privilege (a privileged guard); without it
// the modification is refused, never silently skipped. Adding `untrusted`
// removes `trusted` (trust asymmetry, SPEC §4.5).
func applyLabelMods(d taint.Descriptor, mods []string, privileged bool, who string) (taint.Descriptor, error) {
	for _, m := range mods {
		switch {
		case m == "clear!":
			if !privileged {
				return d, privilegeError(who, m)
			}
			d = clearLabels(d)
		case strings.HasPrefix(m, "!"):
			l := m[1:]
			if !privileged {
				return d, privilegeError(who, m)
			}
			d = removeLabel(d, l)
		case strings.HasSuffix(m, "!"):
			l := strings.TrimSuffix(m, "!")
			if !privileged {
				return d, privilegeError(who, m)
			}
			if l == "trusted" {
				d = removeLabel(d, "untrusted")
			}
			d = d.WithLabels(l)
		default:
			if m == "untrusted" {
				d = removeLabel(d, "trusted")
			}
			d = d.WithLabels(m)
		}
	}
	return d, nil
}

// removeLabel drops l from the labels and the taint of d.
func removeLabel(d taint.Descriptor, l string) taint.Descriptor {
	if !d.HasLabel(l) && !d.HasTaint(l) {
		return d
	}
	return taint.Make(without(d.Labels(), l), without(d.Taint(), l), d.Sources())
}

// clearLabels drops every label, and from the taint everything but source
// and directory markers.
func clearLabels(d taint.Descriptor) taint.Descriptor {
	var keep []string
	for _, t := range d.Taint() {
		if taint.IsSource(t) || taint.IsDirectory(t) {
			keep = append(keep, t)
		}
	}
	return taint.Make(nil, keep, d.Sources())
}

func without(xs []string, l string) []string {
	out := make([]string, 0, len(xs))
	for _, x := range xs {
		if x != l {
			out = append(out, x)
		}
	}
	return out
}

func privilegeError(who, m string) error {
	if who != "" {
		return &labelModError{msg: "Guard " + who + " cannot remove labels without privilege (" + m + ")"}
	}
	return &labelModError{msg: "Label modification '" + m + "' requires privilege"}
}

type labelModError struct{ msg string }

func (e *labelModError) Error() string { return e.msg }
