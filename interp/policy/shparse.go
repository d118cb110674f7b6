package policy

import (
	"fmt"
	"slices"
	"strings"
	"sync"

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
	// exp expands the line's words as bash will, where the line runs
	// (nil: words are kept as written, dynamic ones marked).
	exp *expander
	// opaqueWords are the words of commands the expansion could not
	// know before the line runs, as written, and why the first was not.
	opaqueWords []string
	opaqueWhy   string
	// argvs are the commands as the expansion gave them, in order, for
	// the expanded line.
	argvs [][]shellWord
	// changed: some word expanded to other text than it is written as.
	changed bool
	// gitUnknown is a git subcommand that is neither git's own nor an
	// alias guardrun can read (an alias set earlier, a git-x program).
	gitUnknown string
	// stdin are the texts the line hands a command on its standard
	// input: here-strings and here-documents, as written.
	stdin []string
	// runsFetched says which command runs as its program what a network
	// command of the line fetched: piped into its input (`curl … | sh`)
	// or as a process substitution (`bash <(curl …)`).
	runsFetched string
}

// expandedLine is the line as bash will run it, each simple command's
// argv quoted, separated by `;` ("" when no word changed).
func (sl *shellLine) expandedLine() string {
	if !sl.changed {
		return ""
	}
	var b strings.Builder
	for i, argv := range sl.argvs {
		if i > 0 {
			b.WriteString(" ; ")
		}
		for j, sw := range argv {
			if j > 0 {
				b.WriteByte(' ')
			}
			if sw.dyn {
				b.WriteString(sw.text)
				continue
			}
			q, err := syntax.Quote(sw.text, syntax.LangBash)
			if err != nil {
				q = sw.text
			}
			b.WriteString(q)
		}
	}
	return b.String()
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

// parseShellLineIn parses line as bash and expands its words as bash
// will where env says the line runs (nil: as parseShellLine).
func parseShellLineIn(line string, env *ShellEnv) *shellLine {
	sl := &shellLine{}
	if env != nil {
		sl.exp = newExpander(*env)
	}
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
	bp := bashParsers.Get().(*bashParser)
	bp.r.Reset(src)
	f, err := bp.p.Parse(&bp.r, "")
	bp.r.Reset("")
	bashParsers.Put(bp)
	if err != nil {
		sl.setUnchecked("bash cannot parse it: " + err.Error())
		return
	}
	w := &shellWalker{sl: sl, src: src, depth: depth}
	w.stmts(f.Stmts)
}

// bashParsers are bash parsers for reuse: a Parser can be reused once
// it is done, and allocating one was a tenth of a decision's memory.
var bashParsers = sync.Pool{New: func() any { return &bashParser{p: syntax.NewParser(syntax.Variant(syntax.LangBash))} }}

// bashParser is a pooled parser with the reader it reads from, reset to
// each source text (a new reader per parse was an allocation of its
// own); the reader is emptied before it goes back to the pool.
type bashParser struct {
	p *syntax.Parser
	r strings.Reader
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
	// fetchSubsts counts the process substitutions walked so far whose
	// commands reach the network (`<(curl …)`).
	fetchSubsts int
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
		if x := w.sl.exp; x != nil && r.Op != syntax.Hdoc && r.Op != syntax.DashHdoc {
			argvs, why := x.fields([]*syntax.Word{r.Word}, w.src)
			if why == "" && len(argvs) == 1 && len(argvs[0]) == 1 {
				text = argvs[0][0].text
			} else {
				if why == "" {
					why = "it expands to more than one word"
				}
				w.sl.opaqueWords = append(w.sl.opaqueWords, text)
				if w.sl.opaqueWhy == "" {
					w.sl.opaqueWhy = "'" + text + "': " + why
				}
			}
		}
		if text == "!" && (r.Op == syntax.RdrOut || r.Op == syntax.AppOut) {
			// zsh's >! and >>! write the next word; bash writes a file
			// named !. Either way the line is not what it seems.
			w.sl.setUnchecked("'>!' is zsh's clobbering redirection: the file it writes is the next word")
		}
		switch r.Op {
		case syntax.Hdoc, syntax.DashHdoc:
			// The delimiter names no file.
		case syntax.WordHdoc:
			// A here-string is text on standard input, no file.
			w.sl.stdin = append(w.sl.stdin, text)
			w.sl.words = append(w.sl.words, text)
		default:
			w.sl.redirs = append(w.sl.redirs, shellRedirect{op: r.Op, word: text})
			w.sl.words = append(w.sl.words, text)
		}
	}
	if r.Hdoc != nil {
		// An unquoted here-document's substitutions run.
		body, _ := w.word(r.Hdoc)
		w.sl.stdin = append(w.sl.stdin, body)
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
		switch c.Op {
		case syntax.Pipe, syntax.PipeAll:
			// Each side of a pipe runs in a subshell.
			a := len(w.sl.cmds)
			w.subshell(func() { w.stmt(c.X) })
			b := len(w.sl.cmds)
			w.subshell(func() { w.stmt(c.Y) })
			if fetch := fetcher(w.sl.cmds[a:b]); fetch != "" {
				w.sl.noteRunsFetched(w.sl.cmds[b:], readsScriptFromInput, fetch, "piped into it")
			}
		default:
			// The right side of && and || may not run.
			w.stmt(c.X)
			w.branch(func() { w.stmt(c.Y) })
		}
	case *syntax.Subshell:
		w.subshell(func() { w.stmts(c.Stmts) })
	case *syntax.Block:
		w.stmts(c.Stmts)
	case *syntax.IfClause:
		// Every branch is decided, whatever its test: the test may depend
		// on what only running tells.
		w.branch(func() {
			for ic := c; ic != nil; ic = ic.Else {
				w.stmts(ic.Cond)
				w.stmts(ic.Then)
			}
		})
	case *syntax.WhileClause:
		w.branch(func() {
			w.stmts(c.Cond)
			w.stmts(c.Do)
		})
	case *syntax.ForClause:
		w.branch(func() {
			switch l := c.Loop.(type) {
			case *syntax.WordIter:
				w.loopVar(l)
			case *syntax.CStyleLoop:
				w.nested(l)
				if w.sl.exp != nil {
					syntax.Walk(l, func(n syntax.Node) bool {
						if a, ok := n.(*syntax.BinaryArithm); ok {
							if v, ok := a.X.(*syntax.Word); ok && len(v.Parts) == 1 {
								if lit, ok := v.Parts[0].(*syntax.Lit); ok && validName(lit.Value) {
									w.sl.exp.set(lit.Value, nil, false, "$"+lit.Value+" is a loop counter")
								}
							}
						}
						return true
					})
				}
			default:
				w.sl.setUnchecked(fmt.Sprintf("an unmodelled loop (%T)", l))
			}
			w.stmts(c.Do)
		})
	case *syntax.CaseClause:
		w.word(c.Word)
		w.branch(func() {
			for _, it := range c.Items {
				for _, p := range it.Patterns {
					w.word(p)
				}
				w.stmts(it.Stmts)
			}
		})
	case *syntax.FuncDecl:
		// The body counts as run: the function may be called anywhere,
		// with any arguments.
		w.subshell(func() {
			if w.sl.exp != nil {
				w.sl.exp.posOpaque = true
			}
			w.branch(func() { w.stmt(c.Body) })
		})
	case *syntax.CoprocClause:
		w.stmt(c.Stmt)
	case *syntax.TimeClause:
		w.stmt(c.Stmt)
	case *syntax.DeclClause:
		words := []shellWord{{text: c.Variant.Value}}
		for _, a := range c.Args {
			words = append(words, w.assign(a)...)
			w.bind(a)
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
	w.subshell(func() { w.stmts(ss) })
}

// subshell walks what runs in a subshell: its assignments, directory
// and options do not reach the commands after it.
func (w *shellWalker) subshell(walk func()) {
	x := w.sl.exp
	if x == nil {
		walk()
		return
	}
	s := x.save()
	x.cond++
	walk()
	x.cond--
	x.restore(s)
}

// branch walks what may or may not run: an assignment there leaves the
// variable with its old value or the new one.
func (w *shellWalker) branch(walk func()) {
	if w.sl.exp == nil {
		walk()
		return
	}
	w.sl.exp.cond++
	walk()
	w.sl.exp.cond--
}

// loopVar walks a for loop's words and gives its variable each value
// they expand to.
func (w *shellWalker) loopVar(l *syntax.WordIter) {
	for _, it := range l.Items {
		w.word(it)
	}
	x := w.sl.exp
	if x == nil || l.Name == nil {
		return
	}
	if !l.InPos.IsValid() && len(l.Items) == 0 {
		x.set(l.Name.Value, nil, false, "$"+l.Name.Value+" takes the positional parameters")
		return
	}
	argvs, why := x.fields(l.Items, w.src)
	if why != "" || len(argvs) != 1 || len(argvs[0]) > maxVarValues {
		x.set(l.Name.Value, nil, false, "$"+l.Name.Value+" takes values only known when the line runs")
		return
	}
	v := &shellVar{}
	for _, f := range argvs[0] {
		v.vals = append(v.vals, []string{f.text})
	}
	if len(v.vals) == 0 {
		v.vals = [][]string{nil}
	}
	x.vars[l.Name.Value] = v
}

// bind records an assignment of the line (x=v, export x=v, a=(…)).
func (w *shellWalker) bind(a *syntax.Assign) {
	x := w.sl.exp
	if x == nil || a.Name == nil {
		return
	}
	name := a.Name.Value
	switch {
	case a.Index != nil || a.Append && a.Array == nil && a.Value != nil:
		if a.Append && a.Index == nil {
			old := x.Get(name)
			hit := x.hit
			val, err := x.literal(a.Value)
			if err != nil || hit != "" {
				x.set(name, nil, false, "$"+name+" is set from something only known when the line runs")
				return
			}
			x.set(name, []string{old.Str + val}, false, "")
			return
		}
		x.set(name, nil, false, "$"+name+" is set element by element")
	case a.Array != nil:
		var vals []string
		for _, e := range a.Array.Elems {
			if e.Index != nil || e.Value == nil {
				x.set(name, nil, false, "$"+name+" is set element by element")
				return
			}
			argvs, why := x.fields([]*syntax.Word{e.Value}, w.src)
			if why != "" || len(argvs) != 1 {
				x.set(name, nil, false, "$"+name+" holds values only known when the line runs")
				return
			}
			for _, f := range argvs[0] {
				vals = append(vals, f.text)
			}
		}
		if a.Append {
			x.set(name, nil, false, "$"+name+" is appended to")
			return
		}
		x.set(name, vals, true, "")
	case a.Naked:
		// export x, local x: the value stays.
	default:
		val, err := x.literal(a.Value)
		if err != nil {
			x.set(name, nil, false, "$"+name+" is set from something only known when the line runs ("+err.Error()+")")
			return
		}
		x.set(name, []string{val}, false, "")
	}
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
	substs := w.fetchSubsts
	for _, a := range c.Args {
		text, dyn := w.word(a)
		words = append(words, shellWord{text: text, dyn: dyn})
	}
	if w.fetchSubsts > substs {
		// A script only there while the line runs, fed by a download
		// (bash <(curl …), source <(wget -O- …)).
		n := len(w.sl.cmds)
		defer func() {
			w.sl.noteRunsFetched(w.sl.cmds[n:], substScript, "", "as a process substitution")
		}()
	}
	x := w.sl.exp
	if x == nil {
		w.emit(words)
		return
	}
	if len(c.Args) == 0 {
		// Assignments alone: they stay for the rest of the line.
		for _, a := range c.Assigns {
			w.bind(a)
		}
		return
	}
	argvs, why := x.fields(c.Args, w.src)
	if strings.HasPrefix(why, overBudget) {
		w.sl.setUnchecked("the line is " + why)
	}
	if len(argvs) > 1 || len(argvs) == 1 && !sameWords(argvs[0], words) {
		w.sl.changed = true
	}
	for _, argv := range argvs {
		w.sl.argvs = append(w.sl.argvs, argv)
		for _, sw := range argv {
			if sw.dyn && namesData(sw.text, why) {
				w.sl.opaqueWords = append(w.sl.opaqueWords, sw.text)
				if w.sl.opaqueWhy == "" {
					w.sl.opaqueWhy = "'" + sw.text + "': " + why
				}
			}
		}
		if len(argv) == 0 {
			continue
		}
		w.emit(argv)
		x.builtin(argv)
	}
}

// emit records the simple command made of words, and parses the scripts
// it runs through sh -c, eval or trap.
func (w *shellWalker) emit(words []shellWord) {
	if len(words) > 0 && !words[0].dyn && len(words[0].text) > 1 && words[0].text[0] == '=' {
		// zsh runs `=curl` as the path of curl (EQUALS expansion).
		words = append([]shellWord{{text: words[0].text[1:]}}, words[1:]...)
	}
	// One backing array for raw and tokens and one for dyn and val, each
	// list capped at its own part: the lists are built here and only
	// read after.
	n := len(words)
	strs, flags := make([]string, 2*n), make([]bool, 2*n)
	c := simpleCmd{raw: strs[:0:n], tokens: strs[n : n : 2*n], dyn: flags[:0:n], val: flags[n : n : 2*n]}
	w.sl.words = slices.Grow(w.sl.words, n)
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
		w.gitAlias(&c, inv)
	}
}

// substScript reports a shell, `source` or an interpreter whose script
// operand is a process substitution: `<(…)` as written, /dev/fd/N as
// bash expands it.
func substScript(c *simpleCmd, inv invocation) bool {
	toks := c.tokens[inv.start:inv.end]
	prog := toks[0]
	if _, interp := inlineCode(interpreterName(prog)); !interp && !Is(prog, Shell) && prog != "source" && prog != "." {
		return false
	}
	at := scriptOperand(toks)
	if at < 0 {
		return false
	}
	w := c.raw[inv.start+at]
	return strings.HasPrefix(w, "<(") || strings.HasPrefix(w, "/dev/fd/")
}

// fetcher is the first program of cmds that reaches the network (curl,
// wget…), or "".
func fetcher(cmds []simpleCmd) string {
	for i := range cmds {
		for _, inv := range cmds[i].invs {
			if p := cmds[i].tokens[inv.start]; !cmds[i].dyn[inv.start] && Is(p, Network) {
				return p
			}
		}
	}
	return ""
}

// readsScriptFromInput reports a shell or interpreter that reads its
// program from its standard input (opaqueCode's reason).
func readsScriptFromInput(c *simpleCmd, inv invocation) bool {
	return opaqueCode(c, inv) == scriptFromInput
}

// noteRunsFetched records the first command of cmds for which runs holds
// (it takes its program from what a network command fetched: fetch, or
// the one in its process substitution when ""), handed to it how.
func (sl *shellLine) noteRunsFetched(cmds []simpleCmd, runs func(*simpleCmd, invocation) bool, fetch, how string) {
	if sl.runsFetched != "" {
		return
	}
	for i := range cmds {
		c := &cmds[i]
		for _, inv := range c.invs {
			if runs(c, inv) {
				sl.runsFetched = "'" + c.raw[inv.start] + "' runs what a download hands it (" + how + ")"
				if fetch != "" {
					sl.runsFetched = "'" + c.raw[inv.start] + "' runs what '" + fetch + "' downloads (" + how + ")"
				}
				return
			}
		}
	}
}

// gitAlias follows a git subcommand that is not one of git's own: an
// alias of the repository's or the user's configuration is decided as
// what it runs; an unknown one runs a git-<name> program guardrun cannot
// see into.
func (w *shellWalker) gitAlias(c *simpleCmd, inv invocation) {
	x := w.sl.exp
	if x == nil || c.tokens[inv.start] != "git" || c.dyn[inv.start] {
		return
	}
	sub := inv.sub
	if sub <= inv.start {
		sub = inv.start + 1
	}
	if sub >= inv.end || c.dyn[sub] || strings.HasPrefix(c.raw[sub], "-") || gitCommands[strings.ToLower(c.raw[sub])] {
		return
	}
	name := c.raw[sub]
	alias, ok := x.gitAlias(name)
	if !ok {
		if w.sl.gitUnknown == "" {
			w.sl.gitUnknown = name
		}
		return
	}
	w.sl.changed = true
	w.sl.parse(gitAliasScript(alias, c.raw[sub+1:inv.end]), w.depth+1)
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
		n := len(w.sl.cmds)
		w.substitution(p.Stmts)
		if p.Op == syntax.CmdIn && fetcher(w.sl.cmds[n:]) != "" {
			w.fetchSubsts++
		}
		return true
	case *syntax.ArithmExp:
		b.WriteString(w.src[p.Pos().Offset():p.End().Offset()])
		w.nested(p.X)
		return true
	case *syntax.ExtGlob:
		b.WriteString(w.src[p.Pos().Offset():p.End().Offset()])
		if strings.ContainsAny(p.Pattern.Value, ":'\"`$+^") {
			// zsh reads *(e:'cmd':) as a glob qualifier that runs code.
			w.sl.setUnchecked("'" + w.src[p.Pos().Offset():p.End().Offset()] + "' is a zsh glob qualifier, which can run code")
		}
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

// sameWords reports two argvs with the same texts.
func sameWords(a, b []shellWord) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].text != b[i].text {
			return false
		}
	}
	return true
}

// namesData reports an opaque word that may name what a command reads or
// sends: one computed from a variable or parameter, or a substitution's
// output used as a file (@$(…), --file=$(…)). A substitution's output
// used as data is not: the commands it runs are decided on their own.
func namesData(word, why string) bool {
	if !strings.HasPrefix(why, "a command substitution") {
		return true
	}
	return strings.Contains(word, "@") || strings.Contains(strings.ToLower(word), "file")
}
