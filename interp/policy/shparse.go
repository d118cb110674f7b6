package policy

import (
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// maxParseNesting bounds the bracket nesting of a line handed to the bash
// parser, which descends recursively: deeper lines are refused unparsed.
const maxParseNesting = 4 * maxNesting

// shellLine is a command line as the bash parser reads it: every simple
// command it may run, with its invocations resolved by the same wrapper
// model the script checker uses, and the redirections of each statement.
type shellLine struct {
	cmds []simpleCmd
	// redirs are the redirections of the line: operator and target
	// word (quote-removed).
	redirs []shellRedirect
	// words are the text of every word of the line, the dynamic ones as
	// written: /dev/tcp/… may hide in any of them.
	words []string
	// unchecked, when set, says why the line cannot be fully analysed:
	// the bash parser refused it, or it holds a construct the analysis
	// does not model. Callers must fail closed.
	unchecked string
	// opaque, when set, names a command whose program or code is only
	// known when it runs (a computed program word, python -c, eval $x).
	opaque string
}

// shellRedirect is one redirection: its operator and target word.
type shellRedirect struct {
	op   syntax.RedirOperator
	word string
}

// parseShellLine parses line as bash and collects what it runs. It does
// the work at call time only: no parser is built at package init.
func parseShellLine(line string) *shellLine {
	sl := &shellLine{}
	sl.parse(line, 0)
	return sl
}

// setUnchecked records the first reason the line cannot be analysed.
func (sl *shellLine) setUnchecked(why string) {
	if sl.unchecked == "" {
		sl.unchecked = why
	}
}

// parse parses src (the line, or a script it runs through sh -c or eval)
// and walks it.
func (sl *shellLine) parse(src string, depth int) {
	if depth > maxNesting {
		sl.setUnchecked("Command nesting too deep for policy check")
		return
	}
	if strings.IndexByte(src, 0) >= 0 {
		sl.setUnchecked("a NUL byte cannot be checked")
		return
	}
	if bracketDepth(src) > maxParseNesting {
		sl.setUnchecked("Command nesting too deep for policy check")
		return
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
	if err != nil {
		sl.setUnchecked("bash cannot parse it: " + err.Error())
		return
	}
	w := &shellWalker{sl: sl, src: src, depth: depth}
	w.stmts(f.Stmts)
}

// bracketDepth is an upper bound of the nesting of ( { and ` in s,
// quotes ignored.
func bracketDepth(s string) int {
	d, most := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(', '{':
			d++
			most = max(most, d)
		case ')', '}':
			if d > 0 {
				d--
			}
		}
	}
	return most
}

// shellWalker walks one parsed source text.
type shellWalker struct {
	sl    *shellLine
	src   string
	depth int
}

func (w *shellWalker) stmts(ss []*syntax.Stmt) {
	for _, s := range ss {
		w.stmt(s)
	}
}

func (w *shellWalker) stmt(s *syntax.Stmt) {
	if s == nil {
		return
	}
	if s.Coprocess || s.Disown {
		w.sl.setUnchecked("an unmodelled statement operator")
	}
	w.command(s.Cmd)
	for _, r := range s.Redirs {
		w.redirect(r)
	}
}

func (w *shellWalker) redirect(r *syntax.Redirect) {
	if r.N != nil && strings.HasPrefix(r.N.Value, "{") {
		// {var}> allocates a descriptor; the target is still a file.
		w.sl.words = append(w.sl.words, r.N.Value)
	}
	if r.Word != nil {
		text, _ := w.word(r.Word)
		switch r.Op {
		case syntax.Hdoc, syntax.DashHdoc:
			// The delimiter names no file.
		default:
			w.sl.redirs = append(w.sl.redirs, shellRedirect{op: r.Op, word: text})
			w.sl.words = append(w.sl.words, text)
		}
	}
	if r.Hdoc != nil {
		// An unquoted here-document's substitutions run.
		w.word(r.Hdoc)
	}
}

// command walks one command node. Every kind of node the bash parser
// produces is listed; anything else is refused.
func (w *shellWalker) command(c syntax.Command) {
	switch c := c.(type) {
	case nil:
	case *syntax.CallExpr:
		w.call(c)
	case *syntax.BinaryCmd:
		w.stmt(c.X)
		w.stmt(c.Y)
	case *syntax.Subshell:
		w.stmts(c.Stmts)
	case *syntax.Block:
		w.stmts(c.Stmts)
	case *syntax.IfClause:
		for ic := c; ic != nil; ic = ic.Else {
			w.stmts(ic.Cond)
			w.stmts(ic.Then)
		}
	case *syntax.WhileClause:
		w.stmts(c.Cond)
		w.stmts(c.Do)
	case *syntax.ForClause:
		switch l := c.Loop.(type) {
		case *syntax.WordIter:
			for _, it := range l.Items {
				w.word(it)
			}
		case *syntax.CStyleLoop:
			w.nested(l)
		default:
			w.sl.setUnchecked(fmt.Sprintf("an unmodelled loop (%T)", l))
		}
		w.stmts(c.Do)
	case *syntax.CaseClause:
		w.word(c.Word)
		for _, it := range c.Items {
			for _, p := range it.Patterns {
				w.word(p)
			}
			w.stmts(it.Stmts)
		}
	case *syntax.FuncDecl:
		// The body counts as run: the function may be called anywhere.
		w.stmt(c.Body)
	case *syntax.CoprocClause:
		w.stmt(c.Stmt)
	case *syntax.TimeClause:
		w.stmt(c.Stmt)
	case *syntax.DeclClause:
		words := []shellWord{{text: c.Variant.Value}}
		for _, a := range c.Args {
			words = append(words, w.assign(a)...)
		}
		w.emit(words)
	case *syntax.LetClause:
		for _, x := range c.Exprs {
			w.nested(x)
		}
		w.emit([]shellWord{{text: "let"}})
	case *syntax.TestClause:
		w.nested(c.X)
	case *syntax.ArithmCmd:
		w.nested(c.X)
	default:
		w.sl.setUnchecked(fmt.Sprintf("an unmodelled shell construct (%T)", c))
	}
}

// substitution walks the statements of a command or process
// substitution, one level deeper.
func (w *shellWalker) substitution(ss []*syntax.Stmt) {
	w.depth++
	defer func() { w.depth-- }()
	if w.depth > maxNesting {
		w.sl.setUnchecked("Command nesting too deep for policy check")
		return
	}
	w.stmts(ss)
}

// nested walks a node the analysis does not read word by word
// (arithmetic, [[ … ]] tests): only the commands it runs, in
// substitutions, matter.
func (w *shellWalker) nested(n syntax.Node) {
	if n == nil {
		return
	}
	syntax.Walk(n, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.CmdSubst:
			w.substitution(n.Stmts)
			return false
		case *syntax.ProcSubst:
			w.substitution(n.Stmts)
			return false
		case *syntax.Word:
			w.word(n)
			return false
		}
		return true
	})
}

// assign returns the words of a declaration argument (`export A=b`,
// `local -r x`) and walks its value.
func (w *shellWalker) assign(a *syntax.Assign) []shellWord {
	if a.Index != nil {
		w.nested(a.Index)
	}
	if a.Array != nil {
		for _, e := range a.Array.Elems {
			if e.Index != nil {
				w.nested(e.Index)
			}
			if e.Value != nil {
				w.word(e.Value)
			}
		}
		return []shellWord{{text: w.src[a.Pos().Offset():a.End().Offset()], dyn: true}}
	}
	switch {
	case a.Naked && a.Value != nil:
		text, dyn := w.word(a.Value)
		return []shellWord{{text: text, dyn: dyn}}
	case a.Naked && a.Name != nil:
		return []shellWord{{text: a.Name.Value}}
	case a.Name == nil:
		return nil
	}
	text, dyn := "", false
	if a.Value != nil {
		text, dyn = w.word(a.Value)
	}
	op := "="
	if a.Append {
		op = "+="
	}
	return []shellWord{{text: a.Name.Value + op + text, dyn: dyn}}
}

// shellWord is a word after quote removal; dyn marks one only known
// when the shell expands it (a parameter, a substitution, a glob).
type shellWord struct {
	text string
	dyn  bool
}

func (w *shellWalker) call(c *syntax.CallExpr) {
	for _, a := range c.Assigns {
		w.assign(a)
	}
	words := make([]shellWord, 0, len(c.Args))
	for _, a := range c.Args {
		text, dyn := w.word(a)
		words = append(words, shellWord{text: text, dyn: dyn})
	}
	w.emit(words)
}

// emit records the simple command made of words, and parses the scripts
// it runs through sh -c, eval or trap.
func (w *shellWalker) emit(words []shellWord) {
	c := simpleCmd{}
	for _, sw := range words {
		w.sl.words = append(w.sl.words, sw.text)
		if t := normalizeToken(sw.text); t != "" {
			c.raw = append(c.raw, sw.text)
			c.tokens = append(c.tokens, t)
			c.dyn = append(c.dyn, sw.dyn)
			c.val = append(c.val, false)
		}
	}
	if len(c.tokens) == 0 {
		return
	}
	c.invs = invocations(&c)
	w.sl.cmds = append(w.sl.cmds, c)
	for _, inv := range c.invs {
		if why := opaqueCode(&c, inv); why != "" && w.sl.opaque == "" {
			w.sl.opaque = "'" + c.raw[inv.start] + "': " + why
		}
		if script, ok := shellScript(&c, inv); ok {
			w.sl.parse(script, w.depth+1)
		}
	}
}

// word returns the text of x after quote removal and whether it is only
// known when the shell expands it. Substitutions are walked (their
// commands run) and kept as written; a parameter makes the word dynamic
// and is kept as written, except ~, $HOME and ${HOME}, which stay literal
// text so that paths under them can be recognised.
func (w *shellWalker) word(x *syntax.Word) (string, bool) {
	if x == nil {
		return "", false
	}
	var b strings.Builder
	dyn := false
	for _, p := range x.Parts {
		if w.part(p, &b, false) {
			dyn = true
		}
	}
	return b.String(), dyn
}

// part writes the text of one word part to b and reports whether it is
// dynamic; quoted is true inside double quotes.
func (w *shellWalker) part(p syntax.WordPart, b *strings.Builder, quoted bool) bool {
	switch p := p.(type) {
	case *syntax.Lit:
		if quoted {
			b.WriteString(unescapeDouble(p.Value))
			return false
		}
		b.WriteString(unescapeBare(p.Value))
		for i := 0; i < len(p.Value); i++ {
			if p.Value[i] == '\\' {
				i++
				continue
			}
			if p.Value[i] != '$' && expands(p.Value, i) {
				return true
			}
		}
		return false
	case *syntax.SglQuoted:
		if !p.Dollar {
			b.WriteString(p.Value)
			return false
		}
		text, _, exact := ansiC(p.Value+"'", 0)
		b.WriteString(text)
		return !exact
	case *syntax.DblQuoted:
		dyn := p.Dollar
		for _, q := range p.Parts {
			if w.part(q, b, true) {
				dyn = true
			}
		}
		return dyn
	case *syntax.ParamExp:
		b.WriteString(w.src[p.Pos().Offset():p.End().Offset()])
		if isHomeParam(p) {
			return false
		}
		w.nested(p)
		return true
	case *syntax.CmdSubst:
		b.WriteString(w.src[p.Pos().Offset():p.End().Offset()])
		w.substitution(p.Stmts)
		return true
	case *syntax.ProcSubst:
		b.WriteString(w.src[p.Pos().Offset():p.End().Offset()])
		w.substitution(p.Stmts)
		return true
	case *syntax.ArithmExp:
		b.WriteString(w.src[p.Pos().Offset():p.End().Offset()])
		w.nested(p.X)
		return true
	case *syntax.ExtGlob:
		b.WriteString(w.src[p.Pos().Offset():p.End().Offset()])
		return true
	case *syntax.BraceExp:
		b.WriteString(w.src[p.Pos().Offset():p.End().Offset()])
		return true
	default:
		w.sl.setUnchecked(fmt.Sprintf("an unmodelled word part (%T)", p))
		return true
	}
}

// isHomeParam reports $HOME or ${HOME} with no operator.
func isHomeParam(p *syntax.ParamExp) bool {
	return p.Param != nil && p.Param.Value == "HOME" && !p.Excl && !p.Length && !p.Width &&
		p.Index == nil && p.Slice == nil && p.Repl == nil && p.Exp == nil && p.NestedParam == nil &&
		len(p.Modifiers) == 0 && p.Flags == nil && p.Names == 0
}

// unescapeBare removes the backslashes of unquoted literal text: \x is
// x, and a backslash-newline joins lines.
func unescapeBare(s string) string {
	if strings.IndexByte(s, '\\') < 0 {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
			if s[i] == '\n' {
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// unescapeDouble removes the backslashes of literal text inside double
// quotes, where only \" \\ \$ \` and backslash-newline are escapes.
func unescapeDouble(s string) string {
	if strings.IndexByte(s, '\\') < 0 {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			switch s[i+1] {
			case '"', '\\', '$', '`':
				i++
			case '\n':
				i++
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// crossCheck reads a script's command line (values as plain placeholder
// words, which stay inside their word in every quoting context) with the
// bash parser as well as the splitter, and returns why the line cannot be
// checked: bash would not parse it, it holds a construct the parser
// walk does not model, or it runs a program the splitter did not see
// (the two read it differently, as ANSI-C quoting once made them). "" when
// both agree.
func crossCheck(parts []CommandPart, cmds []simpleCmd) string {
	var b strings.Builder
	for i, p := range parts {
		if p.Value {
			fmt.Fprintf(&b, "GRVALUE%d", i)
			continue
		}
		b.WriteString(p.Text)
	}
	sl := parseShellLine(b.String())
	if sl.unchecked != "" {
		return sl.unchecked
	}
	for i := range sl.cmds {
		c := &sl.cmds[i]
		for _, inv := range c.invs {
			prog := c.tokens[inv.start]
			if c.dyn[inv.start] || strings.Contains(c.raw[inv.start], "GRVALUE") {
				continue
			}
			if !splitterRuns(cmds, prog) {
				return "it runs '" + prog + "', which the command splitter does not see"
			}
		}
	}
	return ""
}

// splitterRuns reports whether some invocation the splitter found runs
// prog.
func splitterRuns(cmds []simpleCmd, prog string) bool {
	for i := range cmds {
		for _, inv := range cmds[i].invs {
			if cmds[i].tokens[inv.start] == prog {
				return true
			}
		}
	}
	return false
}
