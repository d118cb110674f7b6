package guard

import (
	"strings"

	"github.com/guardrun/guardrun/interp/hooks"
	"github.com/guardrun/guardrun/interp/policy"
	"github.com/guardrun/guardrun/interp/value"
	"github.com/guardrun/guardrun/taint"
)

// Error is a guard denial (SPEC §5.16): the operation did not run, or its
// result was refused. Its message has the three or four lines mlld prints.
type Error struct {
	// Guard is the guard the error reports: the first that denied or asked
	// for a retry.
	Guard *Guard
	Scope Scope
	Op    *hooks.OperationContext
	// Timing is the phase that stopped the operation, Before or After.
	Timing Timing
	// Decision is Deny, Retry for a retry request no runner took, or Ask
	// for an approval the caller must get (a Machine's decisions).
	Decision Action
	Reason   string
	Reasons  []string
	Hints    []string
	// RetryHint is set when the denial is a failed retry; the message then
	// reads "Guard retry failed:" and ends with a Hint line.
	RetryHint     string
	OutputPreview string
	Results       []Result
	// Input is the guarded input (the first input for per-operation
	// guards); denied handlers read its labels.
	Input *value.Variable
	// Try and History are the retry attempt of the failed evaluation.
	Try     int
	History []Attempt
	// Cause is the error a failing guard raised (fail closed), if any.
	Cause error
	// Failed is set when the reported guard did not decide but raised an
	// error (Cause): the operation is denied because the guard broke,
	// not because it refused.
	Failed bool
	// Labels are the data labels of what the guards saw (the inputs, and
	// the output after the operation ran): what made them fire.
	Labels []string
	// Policy is set when the denial comes from a policy label-flow rule
	// rather than a guard (Guard is then nil). Like a guard denial it can
	// be handled by a denied => arm.
	Policy *policy.Denial
}

// GuardName is the name errors report: "@name", empty when unnamed.
func (e *Error) GuardName() string {
	if e.Guard == nil || e.Guard.Name == "" {
		return ""
	}
	return "@" + e.Guard.Name
}

// Filter is the reported guard's filter ("data:secret").
func (e *Error) Filter() string {
	if e.Guard == nil {
		return ""
	}
	return e.Guard.Filter()
}

// Error renders the multi-line message.
func (e *Error) Error() string {
	var b strings.Builder
	if e.Policy != nil {
		b.WriteString(e.Policy.Reason)
		b.WriteString("\n  Policy: " + PolicyLabel(e.Policy))
		if e.Op != nil {
			b.WriteString("\n  Operation: " + OpLabel(e.Op))
		}
		return b.String()
	}
	switch {
	case e.Failed:
		b.WriteString("Guard failed, operation denied: " + e.Reason)
	case e.Decision == Retry:
		b.WriteString("Guard retry requested: " + e.RetryHint)
	case e.RetryHint != "":
		b.WriteString("Guard retry failed: " + e.Reason)
	default:
		b.WriteString("Guard blocked operation: " + e.Reason)
	}
	if e.Guard != nil {
		b.WriteString("\n  Guard: ")
		if e.Guard.Name != "" {
			b.WriteString("@" + e.Guard.Name + " (for " + e.Guard.Filter() + ")")
		} else {
			b.WriteString(e.Guard.Filter())
		}
	}
	if e.Op != nil {
		b.WriteString("\n  Operation: " + OpLabel(e.Op))
	}
	if e.RetryHint != "" {
		b.WriteString("\n  Hint: " + e.RetryHint)
	}
	return b.String()
}

// PolicyLabel names the policy layers and the rule of a denial:
// "@p (defaults.rules.no-secret-exfil)".
func PolicyLabel(d *policy.Denial) string {
	names := make([]string, len(d.Policies))
	for i, n := range d.Policies {
		names[i] = "@" + n
	}
	who := strings.Join(names, ", ")
	if who == "" {
		who = "policy"
	}
	if d.Rule == "" {
		return who
	}
	return who + " (" + d.Rule + ")"
}

// Unwrap returns the error of a guard that failed while evaluating.
func (e *Error) Unwrap() error { return e.Cause }

// OpLabel names an operation in messages: "/show (showVariable)", "/exe".
func OpLabel(op *hooks.OperationContext) string {
	if op.Subtype != "" && op.Subtype != op.Type {
		return "/" + op.Type + " (" + op.Subtype + ")"
	}
	return "/" + op.Type
}

// RetrySignal is an after-phase retry request travelling to the runner
// of the directive that can re-run the operation (SPEC §5.10). A runner
// that cannot re-run converts it with Convert.
type RetrySignal struct {
	Err *Error
	// From is the union of what the guards saw (the operation's inputs,
	// and its output after it ran): the hint a guard computed may quote
	// it, so a hint that becomes a value (`@mx.hint`) carries it.
	From taint.Descriptor
}

func (s *RetrySignal) Error() string { return s.Err.Error() }

// Hint is the retry hint.
func (s *RetrySignal) Hint() string {
	if len(s.Err.Hints) > 0 {
		return s.Err.Hints[len(s.Err.Hints)-1]
	}
	return s.Err.RetryHint
}

// Deny turns the unanswered retry into a denial with reason; the message
// reads "Guard retry failed:" with the hint.
func (s *RetrySignal) Deny(reason string) *Error {
	e := *s.Err
	e.Decision = Deny
	e.Reason = reason
	e.RetryHint = s.Hint()
	return &e
}

// preview is the text of a value for errors; confidential data (secret,
// sensitive, pii: policy.Set.Confidential) is redacted.
func preview(v *value.Variable) string {
	if v == nil {
		return ""
	}
	for _, l := range v.Security.Labels() {
		if (*policy.Set)(nil).Confidential(l) {
			return "[REDACTED]"
		}
	}
	if v.Text != nil {
		return *v.Text
	}
	return value.Text(v.Data)
}
