package interp

import (
	"github.com/guardrun/guardrun/ast"
)

// maxDirectiveRetries bounds re-runs of one directive. The guard engine
// denies at its own budget (three attempts) first; this only stops a
// retry loop the engine cannot see.
const maxDirectiveRetries = 10

// retrying runs a directive whose after-guards may ask for a retry
// (SPEC §5.10): a `/var` whose value comes from an invocation, command or
// code, or a `/show` of an invocation, is run again; any other directive
// turns the request into a denial, `Cannot retry: <hint>` (with
// ` (source not retryable)` for a `/var` of a literal or template).
func (in *interp) retrying(pos ast.Pos, replayable bool, varRHS bool, run func() error) error {
	for attempt := 1; ; attempt++ {
		err := run()
		rs := asRetrySignal(err)
		if rs == nil {
			return err
		}
		if !replayable {
			reason := "Cannot retry: " + rs.Hint()
			if varRHS {
				reason += " (source not retryable)"
			}
			return guardFailure(rs.Deny(reason), pos)
		}
		if attempt >= maxDirectiveRetries {
			return guardFailure(rs.Deny("Guard retry limit exceeded (3)"), pos)
		}
		if err := in.checkCtx(pos); err != nil {
			return err
		}
	}
}

// unansweredRetry turns a retry request that reached a directive which
// cannot re-run into a denial.
func unansweredRetry(err error, pos ast.Pos) error {
	if rs := asRetrySignal(err); rs != nil {
		return guardFailure(rs.Deny("Cannot retry: "+rs.Hint()), pos)
	}
	return err
}

// replayableValue reports whether evaluating x again can give a different
// result: it calls something or runs code.
func replayableValue(x ast.Expr) bool {
	found := false
	ast.Inspect(x, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CodeExpr:
			found = true
		case *ast.Ref:
			if isInvocation(n) {
				found = true
			}
		case *ast.Stage:
			if n.Kind == ast.StageCall || n.Kind == ast.StageCode {
				found = true
			}
		}
		return !found
	})
	return found
}
