package grammar

import (
	"github.com/guardrun/guardrun/internal/editdist"
	"strings"

	"github.com/guardrun/guardrun/ast"
)

// guardActions are what a guard's rule can end with; a label change
// (`=> pii @input`, `=> trusted! @output`) is the one other form.
const guardActions = `allow, allow @value, deny "reason", retry "hint", ask "question" or a label change such as pii @input`

// actionLookalikes are words an author writes for an action that does
// not exist, with the action they meant.
var actionLookalikes = map[string]string{
	"block": "deny", "reject": "deny", "refuse": "deny", "forbid": "deny", "disallow": "deny",
	"denied": "deny", "stop": "deny", "abort": "deny", "halt": "deny", "fail": "deny", "error": "deny",
	"prompt": "ask", "confirm": "ask", "approve": "ask", "question": "ask", "asks": "ask", "query": "ask",
	"permit": "allow", "accept": "allow", "allowed": "allow", "pass": "allow", "ok": "allow", "warn": "allow",
	"retries": "retry", "again": "retry", "redo": "retry",
}

// checkGuardAction reports a guard rule whose action is none of the
// guard actions. Such a rule is a typo that would otherwise decide
// something else: `=> block "Push?"` reads as a label change of the text
// "Push?", which the hook would answer as an allow with a rewritten
// input; `=> "Push?"` fails only when the rule fires.
func (l *lowerer) checkGuardAction(action ast.Node) {
	if l.err != nil || action == nil {
		return
	}
	if s, ok := action.(*ast.ExprStmt); ok {
		action = s.Value
	}
	switch a := action.(type) {
	case *ast.AllowExpr, *ast.DenyExpr, *ast.AskExpr, *ast.RetryExpr:
		return
	case *ast.LabelExpr:
		for _, lb := range a.Labels {
			word := strings.Trim(lb, "!")
			if meant := meantAction(strings.ToLower(word)); meant != "" && meant != word {
				hint := "did you mean " + meant + "?"
				if meant == "deny" {
					hint = `did you mean deny "reason"? (ask "question" lets the user decide)`
				}
				l.err = posErr(a.Pos, "Unknown guard action "+lb, l.snippetAt(a.Pos), hint+" A rule ends with "+guardActions)
				return
			}
		}
		if _, ok := a.Value.(*ast.Ref); !ok {
			l.err = posErr(a.Pos, "A guard's label change must name a value (such as @input or @output), not text", l.snippetAt(a.Pos),
				"to stop the call write deny \"reason\" or ask \"question\"; a rule ends with "+guardActions)
		}
		return
	case *ast.StringLit:
		l.err = posErr(a.Position(), "A guard rule cannot end with bare text", l.snippetAt(a.Position()),
			`did you mean deny "…" or ask "…"? To rewrite the input write allow "…"; a rule ends with `+guardActions)
		return
	case *ast.Ref:
		l.err = posErr(a.Pos, "A guard rule cannot end with a bare value", l.snippetAt(a.Pos),
			"did you mean allow @"+a.Name+"…? (allow @value rewrites the input); a rule ends with "+guardActions)
		return
	}
	l.err = posErr(action.Position(), "Expected a guard action", l.snippetAt(action.Position()), "a rule ends with "+guardActions)
}

// meantAction is the action an unknown action word stands for, or "".
func meantAction(word string) string {
	if m, ok := actionLookalikes[word]; ok {
		return m
	}
	for _, act := range []string{"allow", "deny", "retry", "ask"} {
		if editdist.Distance(word, act) <= 1+len(act)/5 {
			return act
		}
	}
	return ""
}

// snippetAt is the first line of source text from p.
func (l *lowerer) snippetAt(p ast.Pos) string {
	if p.Offset < 0 || p.Offset >= len(l.text) {
		return ""
	}
	return firstLine(l.text[p.Offset:])
}
