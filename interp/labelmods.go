package interp

import (
	"strings"

	"github.com/guardrun/guardrun/ast"
	"github.com/guardrun/guardrun/interp/policy"
	"github.com/guardrun/guardrun/interp/value"
	"github.com/guardrun/guardrun/taint"
)

// KindLabel is the error kind of a label change the script may not make
// (mlld's PROTECTED_LABEL_REMOVAL and LABEL_PRIVILEGE_REQUIRED).
const KindLabel ErrorKind = "LabelError"

// labelAuthority is who changes labels: a privileged guard or not (who
// names the guard in messages; "" for exe returns and declarations), under
// the run's policy.
type labelAuthority struct {
	privileged bool
	who        string
	policy     *policy.Set
}

// applyLabelMods applies label modifications (SPEC §4.6) to d: `name` adds
// a label, `!name` removes one, `name!` (`trusted!`) adds it with
// privilege — removing `untrusted` — and `clear!` removes every label but
// source markers. Removals need privilege (a privileged guard); without it
// the modification is refused, never silently skipped. Under a locked
// policy not even privilege removes a label the policy protects. Adding
// `untrusted` removes `trusted` (trust asymmetry, SPEC §4.5), and a label
// that grants trust (`known`, `trusted`) vouches only for data that is
// not untrusted, unless a privileged guard of an unlocked policy adds it.
func applyLabelMods(d taint.Descriptor, mods []string, a labelAuthority) (taint.Descriptor, error) {
	orig := d
	for _, m := range mods {
		switch {
		case m == "clear!":
			if !a.privileged {
				return d, privilegeError(a.who, m)
			}
			d = clearLabels(d)
		case strings.HasPrefix(m, "!"):
			l := m[1:]
			if !a.privileged {
				if taint.IsProtected(l) {
					return d, protectedError(a.who, l)
				}
				return d, privilegeError(a.who, m)
			}
			d = removeLabel(d, l)
		case strings.HasSuffix(m, "!"):
			l := strings.TrimSuffix(m, "!")
			if !a.privileged {
				return d, privilegeError(a.who, m)
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
	if err := a.checkLocked(orig, d); err != nil {
		return orig, err
	}
	if err := a.checkTrust(orig, d); err != nil {
		return orig, err
	}
	return d, nil
}

// checkLocked refuses a change from before to after that drops a label a
// locked policy protects: the privilege to remove labels is the script's
// own, and a locked policy is the operator's.
func (a labelAuthority) checkLocked(before, after taint.Descriptor) error {
	if !a.policy.Locked() {
		return nil
	}
	for _, l := range before.Labels() {
		if !after.HasLabel(l) && a.policy.Protects(l) {
			who := "this label change"
			if a.who != "" {
				who = "guard " + a.who
			}
			return &labelModError{
				msg:  "Cannot remove label '" + l + "': the locked policy protects it, so " + who + " may not remove it",
				hint: "a locked policy's labels stay on the data; handle the denial with a denied => arm, or unlock the policy if the script is trusted to lift it",
			}
		}
	}
	return nil
}

// checkTrust refuses a change from before to after that adds a label
// granting trust to data that is untrusted: only a privileged guard, under
// a policy that is not locked, may vouch for such data.
func (a labelAuthority) checkTrust(before, after taint.Descriptor) error {
	if a.privileged && !a.policy.Locked() {
		return nil
	}
	for _, l := range after.Labels() {
		if before.HasLabel(l) || !policy.GrantsTrust(l) {
			continue
		}
		if a.policy.CountsUntrusted(before.Taint()) || a.policy.CountsUntrusted(after.Taint()) {
			return trustError(a.who, l)
		}
	}
	return nil
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

const privilegeHint = "only a privileged guard (guard privileged @name …) may remove labels"

func privilegeError(who, m string) error {
	if who != "" {
		return &labelModError{msg: "Guard " + who + " cannot remove labels without privilege (" + m + ")", hint: privilegeHint}
	}
	return &labelModError{msg: "Label modification '" + m + "' requires privilege", hint: privilegeHint}
}

// protectedError is SPEC §4.6's PROTECTED_LABEL_REMOVAL.
func protectedError(who, l string) error {
	if who != "" {
		return &labelModError{msg: "Guard " + who + " cannot remove protected label '" + l + "'", hint: privilegeHint}
	}
	return &labelModError{msg: "Cannot remove protected label '" + l + "' without privilege", hint: privilegeHint}
}

func trustError(who, l string) error {
	by := ""
	if who != "" {
		by = " (guard " + who + ")"
	}
	return &labelModError{
		msg:  "Cannot add trust label '" + l + "' to untrusted data" + by,
		hint: "'" + l + "' vouches for data, and untrusted data needs a privileged guard (under a policy that is not locked) to be vouched for; label trusted sources instead",
	}
}

type labelModError struct{ msg, hint string }

func (e *labelModError) Error() string { return e.msg }

// declaredLabels gives v the labels written before a value (`=> pii @v`,
// `var known @x = …`), which add labels only; pos is where they are
// written.
func (in *interp) declaredLabels(v *value.Variable, labels []string, pos ast.Pos) (*value.Variable, error) {
	if len(labels) == 0 {
		return v, nil
	}
	d, err := applyLabelMods(v.Security, labels, labelAuthority{policy: &in.policy})
	if err != nil {
		return nil, labelError(err, pos)
	}
	c := *v
	c.Security = d
	return &c, nil
}

// labelError positions a label modification error for the script's author.
func labelError(err error, pos ast.Pos) error {
	if le, ok := err.(*labelModError); ok {
		return &Error{Kind: KindLabel, Pos: pos, Message: le.msg, Hint: le.hint, Err: err}
	}
	return atPos(err, KindLabel, pos)
}
