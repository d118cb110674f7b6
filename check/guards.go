package check

import (
	"strings"

	"github.com/guardrun/guardrun/ast"
)

// opKeys are the operation keys (SPEC §5.3) an `op:` filter can name:
// types, lower-cased subtypes and code languages.
var opKeys = &lazySet{names: []string{"exe", "show", "run", "cmd", "sh", "bash", "js", "node", "py", "prose", "exec",
	"output", "append", "log", "var", "pipeline-stage", "effect",
	"showvariable", "showtemplate", "showinvocation", "showliteral", "runcommand", "runexec", "runcode",
	"outputfile", "outputstream", "appendfile", "exetemplate", "execode", "execommand", "exeblock", "exewhen"}}

// sourceLabels are the labels guardrun adds by itself.
func builtinLabel(l string) bool {
	return strings.HasPrefix(l, "src:") || strings.HasPrefix(l, "dir:")
}

// guards reports filters that never match, arms that can never run and
// guards shadowed by an earlier one.
func (c *checker) guards() {
	for _, g := range c.guardList {
		c.filter(g)
		c.inputFields(g)
		c.reasonText(g)
	}
	ast.Inspect(c.doc, func(n ast.Node) bool {
		if w, ok := n.(*ast.WhenExpr); ok {
			c.afterStar(w)
		}
		return true
	})
	if c.overrides {
		return
	}
	for i, g := range c.guardList {
		for _, prev := range c.guardList[:i] {
			if why := shadows(prev, g); why != "" {
				c.report(Finding{Pos: g.Pos, Severity: Warning, Kind: KindShadowed,
					Message: guardLabel(g) + " is shadowed by " + guardLabel(prev) + " (line " + itoa(prev.Pos.Line) + "): " + why})
				break
			}
		}
	}
}

func guardLabel(g *ast.GuardDirective) string {
	if g.Name != "" {
		return "guard @" + g.Name
	}
	return "guard " + g.Timing + " " + g.Trigger
}

// filter reports a guard filter nothing in the script can match. Labels
// and functions from imported modules are unknown, so a script with
// imports gets no label or function findings.
func (c *checker) filter(g *ast.GuardDirective) {
	t := g.Trigger
	never := func(msg string) {
		c.report(Finding{Pos: g.Pos, Severity: Warning, Kind: KindNeverMatches, Message: guardLabel(g) + " never fires: " + msg})
	}
	if c.agent && c.agentFilter(g, never) {
		return
	}
	switch {
	case strings.HasPrefix(t, "op:"):
		v := strings.ToLower(t[3:])
		if c.exeLabels[v] || c.labels[v] || c.toolLabels[v] {
			return
		}
		head, rest, hier := strings.Cut(v, ":")
		if !opKeys.has(head) {
			never("no operation has the key \"" + v + "\" (operation filters are op:exe, op:show, op:run, op:cmd, op:output, … or an exe label)")
			return
		}
		if hier && (head == "cmd" || head == "sh") && !c.imports {
			word, _, _ := strings.Cut(rest, ":")
			if !c.commands[word] {
				never("no command in this script runs \"" + word + "\"")
			}
		}
	case strings.HasPrefix(t, "@"):
		if c.exes[t[1:]] == nil && c.globals[t[1:]] == nil && !c.open {
			never("no exe is named " + t)
		}
	default:
		// The well-known data labels (secret, pii, untrusted, …) are left
		// alone: a policy file guards them for the scripts that use it.
		if c.labels[t] || c.exeLabels[t] || c.toolLabels[t] || builtinLabel(t) || dataLabels.has(t) || c.imports {
			return
		}
		never("no value or exe in this script carries the label \"" + t + "\"")
	}
}

// reasonText reports, in a reason or question written as a template, a
// reference followed by ? at a word's end (Pay @amount?): in a template
// `@x?` means "@x, or nothing when it is empty", so the question mark is
// not printed.
func (c *checker) reasonText(g *ast.GuardDirective) {
	if g.Body == nil {
		return
	}
	for _, arm := range g.Body.Arms {
		var tmpl *ast.StringLit
		switch a := arm.Action.(type) {
		case *ast.DenyExpr:
			tmpl = a.Template
		case *ast.AskExpr:
			tmpl = a.Template
		}
		if tmpl == nil {
			continue
		}
		for i, part := range tmpl.Parts {
			p, ok := part.(*ast.InterpPart)
			if !ok || !p.OmitFalsy || p.Snippet != nil || p.Fallback != nil {
				continue
			}
			if i+1 < len(tmpl.Parts) {
				next, ok := tmpl.Parts[i+1].(*ast.TextPart)
				if !ok || next.Text == "" || !strings.ContainsRune(" \t\n.,;:!)", rune(next.Text[0])) {
					continue
				}
			}
			c.report(Finding{Pos: p.Pos, Severity: Warning, Kind: KindReasonText,
				Message: "the ? after this reference is not printed (in a template @x? means @x, or nothing when it is empty); write \\? for a question mark"})
		}
	}
}

// afterStar reports arms after an unconditional `*`: the first matching
// arm wins, so they never run.
func (c *checker) afterStar(w *ast.WhenExpr) {
	star := false
	for _, arm := range w.Arms {
		if arm.Let {
			continue
		}
		if star {
			sev := Warning
			if c.agent {
				// A rule of an agent policy that never runs is a rule the
				// author believes protects them.
				sev = Error
			}
			c.report(Finding{Pos: arm.Pos, Severity: sev, Kind: KindUnreachable,
				Message: "this arm never runs: an earlier * arm always matches first", FailsOpen: c.agent})
			return
		}
		star = arm.Kind == ast.ArmWildcard
	}
}

// shadows explains why guard g can never change a decision once prev
// has run, or returns "". prev shadows g when both see the same
// operations at the same timing and prev denies every one of them
// (its first deciding arm is `* => deny`): a later guard's allow cannot
// undo a deny. An identical guard is also shadowed.
func shadows(prev, g *ast.GuardDirective) string {
	if prev.Timing != g.Timing || !sameFilter(prev.Trigger, g.Trigger) {
		return ""
	}
	for _, arm := range prev.Body.Arms {
		if arm.Let {
			continue
		}
		if arm.Kind == ast.ArmWildcard {
			if _, deny := arm.Action.(*ast.DenyExpr); deny {
				return "it denies every operation this guard sees"
			}
		}
		break
	}
	if sameBody(prev.Body, g.Body) {
		return "it has the same filter and rules"
	}
	return ""
}

// sameFilter reports whether prev's filter covers every operation g's
// does: the same filter, or an op filter above g's (op:cmd above
// op:cmd:git).
func sameFilter(prev, g string) bool {
	prev, g = strings.ToLower(prev), strings.ToLower(g)
	return prev == g || strings.HasPrefix(prev, "op:") && strings.HasPrefix(g, prev+":")
}

func sameBody(a, b *ast.WhenExpr) bool {
	if len(a.Arms) != len(b.Arms) {
		return false
	}
	for i := range a.Arms {
		if nodeText(a.Arms[i].Cond) != nodeText(b.Arms[i].Cond) || nodeText(a.Arms[i].Action) != nodeText(b.Arms[i].Action) || a.Arms[i].Kind != b.Arms[i].Kind {
			return false
		}
	}
	return true
}

// nodeText is a position-free rendering of a node for comparison.
func nodeText(n ast.Node) string {
	var b strings.Builder
	ast.Inspect(n, func(m ast.Node) bool {
		switch m := m.(type) {
		case nil:
			b.WriteString(")")
			return false
		case *ast.Ref:
			b.WriteString("@" + m.Name)
			for _, a := range m.Path {
				b.WriteString("." + a.Name)
			}
		case *ast.StringLit:
			t, plain := m.PlainText()
			if !plain {
				// A template: its text parts differ where its
				// references do not.
				t = m.Raw
			}
			b.WriteString("'" + t + "'")
		case *ast.BinaryExpr:
			b.WriteString(m.Op)
		case *ast.UnaryExpr:
			b.WriteString(m.Op)
		case *ast.DenyExpr:
			b.WriteString("deny:" + m.Reason)
		case *ast.AskExpr:
			b.WriteString("ask:" + m.Question)
		case *ast.NumberLit:
			b.WriteString(m.Raw)
		case *ast.BoolLit:
			if m.Value {
				b.WriteString("true")
			} else {
				b.WriteString("false")
			}
		}
		b.WriteString("(")
		return true
	})
	return b.String()
}
