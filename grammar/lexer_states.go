package grammar

import (
	"strings"
	"unicode/utf8"

	"github.com/alecthomas/participle/v2/lexer"
)

// This file holds one function per lexer state. Each tries its rules in
// order at offset i, like the alternatives of a regexp lexer, and either
// emits a token, skips input (or pops its state) and asks to be called
// again, or fails.

var none lexer.Token

// expr lexes directive text. NL is kept (the span scanner needs it) and
// elided by the parser. ArmStar is a `*` that starts a line, which inside
// a when list is a wildcard arm and never a multiplication; ArmOp is a
// comparison or logical operator that starts a line, which opens a match
// arm (`>= 0.3 && < 0.7 => …`) rather than continuing the previous arm's
// action. In a /for head (forHead) the line break ends the head instead.
func (l *handLexer) expr(i int, forHead bool) (lexer.Token, step) {
	rest := l.src[i:]
	c := rest[0]
	if strings.HasPrefix(rest, ">>") || strings.HasPrefix(rest, "<<") {
		l.advance(lineLen(rest))
		return none, stepAgain
	}
	if n := newlineLen(rest); n > 0 {
		if forHead {
			// Like mlld, the head swallows the blank space after it.
			l.pop()
			return l.emit(tForHeadEnd, n+spaceLen(rest[n:])), stepToken
		}
		j := n + blankLen(rest[n:])
		if pipeContinues(rest[j:]) {
			// A line starting with | continues the expression above it
			// (vertical pipelines).
			l.advance(j)
			return none, stepAgain
		}
		if j < len(rest) && rest[j] == '*' {
			return l.emit(tArmStar, j+1), stepToken
		}
		if k := armOpLen(rest[j:]); k > 0 {
			return l.emit(tArmOp, j+k), stepToken
		}
		return l.emit(tNL, n), stepToken
	}
	switch c {
	case ' ', '\t', '\r':
		n := 1
		for n < len(rest) && (rest[n] == ' ' || rest[n] == '\t' || rest[n] == '\r') {
			n++
		}
		l.advance(n)
		return none, stepAgain
	case '|':
		if j := 1 + blankLen(rest[1:]); j < len(rest) && rest[j] == '{' {
			l.push(stCode)
			return l.emit(tPipeCode, j+1), stepToken
		}
	case ':':
		if strings.HasPrefix(rest, ":::") {
			l.push(stTriple)
			return l.emit(tTripleOpen, 3), stepToken
		}
		if strings.HasPrefix(rest, "::") {
			l.push(stColon)
			return l.emit(tColonOpen, 2), stepToken
		}
	case '`':
		l.push(stBT)
		return l.emit(tBTOpen, 1), stepToken
	case '"':
		l.push(stDQ)
		return l.emit(tDQOpen, 1), stepToken
	case '\'':
		if n := sqStringLen(rest); n > 0 {
			return l.emit(tSQString, n), stepToken
		}
		return l.emit(tBadQuote, 1), stepToken
	case '<':
		if n := fileLoadLen(rest); n > 0 {
			return l.emit(tFileLoad, n), stepToken
		}
	case '@':
		if n := identLen(rest[1:]); n > 0 {
			return l.emit(tAtIdent, 1+n), stepToken
		}
	}
	if l.afterTo {
		if n := barePathLen(rest); n > 0 {
			return l.emit(tBarePath, n), stepToken
		}
	}
	if isAlpha(c) {
		if n := bareKwLen(rest); n > 0 {
			return l.emit(tBareKw, n), stepToken
		}
		if n := codeOpenLen(rest); n > 0 {
			l.push(stCode)
			return l.emit(tCodeOpen, n), stepToken
		}
	}
	if isDigit(c) {
		return l.emit(tNumber, numberLen(rest)), stepToken
	}
	if n := identLen(rest); n > 0 {
		return l.emit(tIdent, n), stepToken
	}
	if n := opLen(rest); n > 0 {
		return l.emit(opType(rest[:n]), n), stepToken
	}
	if i == l.pathEnd {
		// As in mlld, an accessor touches what it applies to: `@list[0]`
		// and `@f(1)` index and call, while in `when @v [ … ]`, `for @x in
		// @xs [ … ]` or `@a (1)` the bracket opens a block, an array or a
		// parenthesis. Their own token types let the grammar tell them
		// apart without trying both.
		switch c {
		case '[':
			return l.emit(tIndexOpen, 1), stepToken
		case '(':
			return l.emit(tCallOpen, 1), stepToken
		}
	}
	if strings.IndexByte(`[](){},;:.?!<>=|*/%+-`, c) >= 0 {
		return l.emit(opType(rest[:1]), 1), stepToken
	}
	return l.emit(tBad, runeLen(rest)), stepToken
}

// quoted lexes the inside of "…" and `…`.
func (l *handLexer) quoted(i int, closer byte, closeT lexer.TokenType) (lexer.Token, step) {
	rest := l.src[i:]
	if rest[0] == closer {
		l.pop()
		return l.emit(closeT, 1), stepToken
	}
	if closer == '`' {
		// Backtick templates take /for … /end blocks too, as in mlld.
		if tok, ok := l.slashFor(i); ok {
			return tok, stepToken
		}
	}
	if tok, res, ok := l.interpolation(rest, false); ok {
		return tok, res
	}
	if closer == '`' {
		if tok, ok := l.templateLoad(rest); ok {
			return tok, stepToken
		}
	}
	if n := textLen(rest, closer, false); n > 0 {
		if closer == '`' {
			n = templateLoadCut(rest, l.forCut(i, n))
		}
		return l.emit(tText, n), stepToken
	}
	return l.loneAt(rest)
}

// templateLoad lexes a `<path>` file reference inside a backtick or ::
// template, which mlld loads and interpolates; its field accessors follow
// as in an @reference.
func (l *handLexer) templateLoad(rest string) (lexer.Token, bool) {
	n := templateLoadLen(rest)
	if n == 0 {
		return none, false
	}
	l.push(stTRef)
	return l.emit(tFileLoad, n), true
}

// templateLoadLen is the length of a file reference at the start of s:
// a <…> whose path looks like one (it has a '.', '/' or '*' and does not
// end in '/', so markup such as <b> or <br/> stays text).
func templateLoadLen(s string) int {
	if len(s) == 0 || s[0] != '<' {
		return 0
	}
	n := fileLoadLen(s)
	if n == 0 {
		return 0
	}
	p := strings.TrimSuffix(s[1:n], "?")
	p = strings.TrimSuffix(p, ">")
	if i := strings.IndexAny(p, " \t"); i >= 0 {
		p = p[:i]
	}
	if !strings.ContainsAny(p, "./*") || strings.HasSuffix(p, "/") {
		return 0
	}
	return n
}

// templateLoadCut shortens a text run of n bytes to end before the first
// file reference in it.
func templateLoadCut(s string, n int) int {
	for i := 1; i < n; i++ {
		if s[i] == '<' && templateLoadLen(s[i:]) > 0 {
			return i
		}
	}
	return n
}

// interpolation lexes what all @-templates share: an escape, `@@` and an
// @reference. ok is false when none of them starts here.
func (l *handLexer) interpolation(rest string, cmd bool) (lexer.Token, step, bool) {
	switch rest[0] {
	case '\\':
		if cmd {
			if strings.HasPrefix(rest, `\@`) {
				return l.emit(tEsc, 2), stepToken, true
			}
			return none, stepFail, false
		}
		if len(rest) < 2 {
			return none, stepFail, true
		}
		return l.emit(tEsc, 1+runeLen(rest[1:])), stepToken, true
	case '@':
		if strings.HasPrefix(rest, "@@") {
			return l.emit(tAtAt, 2), stepToken, true
		}
		if n := identLen(rest[1:]); n > 0 {
			l.push(stTRef)
			return l.emit(tTplRef, 1+n), stepToken, true
		}
	}
	return none, stepFail, false
}

func (l *handLexer) loneAt(rest string) (lexer.Token, step) {
	if rest[0] == '@' {
		return l.emit(tText, 1), stepToken
	}
	return none, stepFail
}

// atLineStart reports whether offset i begins a line of the input.
func (l *handLexer) atLineStart(i int) bool {
	return i == 0 || l.src[i-1] == '\n' || l.src[i-1] == '\r'
}

// colon lexes the inside of ::…::, where a line starting with
// `/for @x in @source` opens a loop block that `/end` closes.
func (l *handLexer) colon(i int) (lexer.Token, step) {
	rest := l.src[i:]
	if strings.HasPrefix(rest, "::") {
		l.pop()
		return l.emit(tColonClose, 2), stepToken
	}
	if tok, ok := l.slashFor(i); ok {
		return tok, stepToken
	}
	if tok, res, ok := l.interpolation(rest, false); ok {
		return tok, res
	}
	if tok, ok := l.templateLoad(rest); ok {
		return tok, stepToken
	}
	if n := l.colonTextLen(i); n > 0 {
		return l.emit(tText, templateLoadCut(rest, n)), stepToken
	}
	if rest[0] == ':' {
		return l.emit(tText, 1), stepToken
	}
	return l.loneAt(rest)
}

func isForHead(s string) bool {
	return strings.HasPrefix(s, "/for") && len(s) > 4 && (s[4] == ' ' || s[4] == '\t')
}

// slashFor lexes the start of a /for head or a /end at the start of a
// line of a :: or backtick template.
func (l *handLexer) slashFor(i int) (lexer.Token, bool) {
	rest := l.src[i:]
	if rest[0] != '/' || !l.atLineStart(i) {
		return none, false
	}
	if isForHead(rest) {
		l.forDepth++
		l.push(stForHead)
		return l.emit(tColonFor, 4), true
	}
	if l.forDepth > 0 && strings.HasPrefix(rest, "/end") {
		l.forDepth--
		return l.emit(tColonEnd, 4), true
	}
	return none, false
}

// forCut shortens a text run of n bytes at i to end before a /for or
// /end line.
func (l *handLexer) forCut(i, n int) int {
	for j := i + 1; j < i+n; j++ {
		if l.src[j] == '/' && l.atLineStart(j) && (isForHead(l.src[j:]) || l.forDepth > 0 && strings.HasPrefix(l.src[j:], "/end")) {
			return j - i
		}
	}
	return n
}

// colonTextLen is textLen for :: templates, which also stops before a
// /for or /end line.
func (l *handLexer) colonTextLen(i int) int {
	return l.forCut(i, textLen(l.src[i:], ':', false))
}

// triple lexes the inside of :::…:::, which interpolates only {{name}}.
func (l *handLexer) triple(i int) (lexer.Token, step) {
	rest := l.src[i:]
	switch {
	case strings.HasPrefix(rest, ":::"):
		l.pop()
		return l.emit(tTripleClose, 3), stepToken
	case strings.HasPrefix(rest, "{{"):
		l.push(stMustache)
		return l.emit(tMOpen, 2), stepToken
	case rest[0] == ':' || rest[0] == '{':
		return l.emit(tText, 1), stepToken
	}
	n := strings.IndexAny(rest, ":{")
	if n < 0 {
		n = len(rest)
	}
	return l.emit(tText, n), stepToken
}

func (l *handLexer) mustache(i int) (lexer.Token, step) {
	rest := l.src[i:]
	switch {
	case strings.HasPrefix(rest, "}}"):
		l.pop()
		return l.emit(tMClose, 2), stepToken
	case rest[0] == ' ' || rest[0] == '\t':
		l.advance(blankLen(rest))
		return none, stepAgain
	case rest[0] == '.':
		return l.emit(tMDot, 1), stepToken
	case rest[0] == '[':
		// {{list[0]}}, {{obj["key"]}}: index access, as in mlld.
		return l.emit(tMLBrack, 1), stepToken
	case rest[0] == ']':
		return l.emit(tMRBrack, 1), stepToken
	case rest[0] == '"' || rest[0] == '\'':
		if n := strings.IndexByte(rest[1:], rest[0]); n >= 0 && strings.IndexByte(rest[1:n+1], '\n') < 0 {
			return l.emit(tMKey, n+2), stepToken
		}
	case isDigit(rest[0]):
		n := 1
		for n < len(rest) && isDigit(rest[n]) {
			n++
		}
		return l.emit(tNumber, n), stepToken
	}
	if n := identLen(rest); n > 0 {
		return l.emit(tIdent, n), stepToken
	}
	return l.emit(tBad, runeLen(rest)), stepToken
}

func (l *handLexer) tref(i int) (lexer.Token, step) {
	rest := l.src[i:]
	switch rest[0] {
	case '.':
		if n := fieldLen(rest); n > 0 {
			return l.emit(tTField, n), stepToken
		}
	case '[':
		l.push(stTBrack)
		return l.emit(tTLBrack, 1), stepToken
	case '(':
		l.push(stTParen)
		return l.emit(tTLParen, 1), stepToken
	case '?':
		if strings.HasPrefix(rest, "??") {
			l.push(stTFB)
			return l.emit(tTFallback, 2), stepToken
		}
		if strings.HasPrefix(rest, "?`") && l.snippetFollows(rest[2:], '`') {
			// `@x?`snippet``: the snippet is included when @x is truthy.
			l.pop()
			l.push(stBT)
			return l.emit(tCondOpen, 2), stepToken
		}
		if strings.HasPrefix(rest, `?"`) && l.snippetFollows(rest[2:], '"') {
			// "@x?"fragment"": the same inside a double-quoted string.
			l.pop()
			l.push(stDQ)
			return l.emit(tCondDQOpen, 2), stepToken
		}
		return l.emit(tTOmit, 1), stepToken
	case '|':
		if n := templatePipeLen(rest); n > 0 && l.templatePipes() {
			return l.emit(tTPipe, n), stepToken
		}
	}
	l.pop()
	return none, stepAgain
}

// templatePipeLen is the length of a condensed pipe `|@name` (with
// `.field` parts, as in `|@json.fromlist`) at the start of s, or 0. As in
// mlld's TemplatePipe, a template pipe takes no arguments and no spaces.
func templatePipeLen(s string) int {
	if len(s) < 2 || s[0] != '|' || s[1] != '@' {
		return 0
	}
	n := identLen(s[2:])
	if n == 0 {
		return 0
	}
	i := 2 + n
	for i+1 < len(s) && s[i] == '.' {
		m := identLen(s[i+1:])
		if m == 0 {
			break
		}
		i += 1 + m
	}
	return i
}

// templatePipes reports whether the reference being lexed is inside a
// template or a double-quoted string, where mlld reads `@x|@upper` as a
// pipe; in a command a `|` is the shell's.
func (l *handLexer) templatePipes() bool {
	for i := len(l.stack) - 2; i >= 0; i-- {
		switch l.stack[i] {
		case stBT, stDQ, stColon:
			return true
		case stTRef, stTBrack, stTParen:
			continue
		}
		return false
	}
	return false
}

// snippetFollows reports whether the quote after `@x?` opens a
// conditional snippet rather than closing the template around it. As in
// mlld's grammar, a snippet inside a backtick template or a double-quoted
// string is inline: its closing quote is on the same line (so
// `x:@e?` ends with an omitted @e). In a :: template or a command a
// backtick snippet may span lines but is not empty. A double-quoted
// string takes only "…" fragments, and only it does.
func (l *handLexer) snippetFollows(after string, quote byte) bool {
	enclosing := stExpr
	if len(l.stack) >= 2 {
		enclosing = l.stack[len(l.stack)-2]
	}
	switch {
	case quote == '"' || enclosing == stDQ:
		// Only "…" fragments inside "…", and only there.
		if quote != '"' || enclosing != stDQ {
			return false
		}
	case enclosing != stBT:
		return after != "" && after[0] != '`'
	}
	end := strings.IndexByte(after, '\n')
	if end < 0 {
		end = len(after)
	}
	return strings.IndexByte(after[:end], quote) >= 0
}

// nested lexes expression tokens inside a template reference's [ ] or
// ( ), tracking nested brackets of the same kind.
func (l *handLexer) nested(i int, open, closer byte, openT, closeT lexer.TokenType, st lexState) (lexer.Token, step) {
	switch l.src[i] {
	case closer:
		l.pop()
		return l.emit(closeT, 1), stepToken
	case open:
		l.push(st)
		return l.emit(openT, 1), stepToken
	}
	return l.expr(i, false)
}

// fallback follows `@name??`: a quoted default, or back to the text.
func (l *handLexer) fallback(i int) (lexer.Token, step) {
	rest := l.src[i:]
	switch rest[0] {
	case '"':
		l.push(stDQ)
		return l.emit(tDQOpen, 1), stepToken
	case '\'':
		if n := sqStringLen(rest); n > 0 {
			return l.emit(tSQString, n), stepToken
		}
	}
	l.pop()
	return none, stepAgain
}

// cmd lexes a command template: every byte but @references, `\@` and
// `@@` is shell text, backslashes included.
func (l *handLexer) cmd(i int) (lexer.Token, step) {
	rest := l.src[i:]
	if tok, res, ok := l.interpolation(rest, true); ok {
		return tok, res
	}
	if n := textLen(rest, 0, true); n > 0 {
		return l.emit(tText, n), stepToken
	}
	if rest[0] == '\\' {
		return l.emit(tText, 1), stepToken
	}
	return l.loneAt(rest)
}

// code lexes a raw code body. Quoted runs are single tokens so that
// braces inside JS strings and templates do not unbalance the block; an
// unmatched quote degrades to one character of text instead of
// swallowing the file.
func (l *handLexer) code(i int) (lexer.Token, step) {
	rest := l.src[i:]
	switch c := rest[0]; c {
	case '{':
		l.push(stCode)
		return l.emit(tCodeLBrace, 1), stepToken
	case '}':
		l.pop()
		return l.emit(tCodeRBrace, 1), stepToken
	case '"', '\'', '`':
		if n := codeStringLen(rest, c); n > 0 {
			return l.emit(tCodeText, n), stepToken
		}
		return l.emit(tCodeText, 1), stepToken
	}
	n := strings.IndexAny(rest, "{}\"'`")
	if n < 0 {
		n = len(rest)
	}
	return l.emit(tCodeText, n), stepToken
}

func isAlpha(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isDigit(c byte) bool { return c >= '0' && c <= '9' }
func isAlnum(c byte) bool { return isAlpha(c) || isDigit(c) }

// runeLen is the byte width of the first rune of s; an invalid byte counts
// as one rune, as in Go's regexp.
func runeLen(s string) int {
	_, n := utf8.DecodeRuneInString(s)
	return n
}

// identLen is the length of the identifier at the start of s, or 0.
func identLen(s string) int {
	if s == "" || !isAlpha(s[0]) && s[0] != '_' {
		return 0
	}
	i := 1
	for i < len(s) {
		switch c := s[i]; {
		case isAlnum(c) || c == '_':
			i++
		case c == '-' && i+1 < len(s) && isAlnum(s[i+1]):
			i += 2
		default:
			return i
		}
	}
	return i
}

// fieldLen matches `.name` after a template reference: alphanumerics and
// underscores, then hyphenated alphanumeric runs.
func fieldLen(s string) int {
	i := 1
	for i < len(s) && (isAlnum(s[i]) || s[i] == '_') {
		i++
	}
	if i == 1 {
		return 0
	}
	for i+1 < len(s) && s[i] == '-' && isAlnum(s[i+1]) {
		i += 2
		for i < len(s) && isAlnum(s[i]) {
			i++
		}
	}
	return i
}

func numberLen(s string) int {
	i := 0
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	if i+1 < len(s) && s[i] == '.' && isDigit(s[i+1]) {
		i += 2
		for i < len(s) && isDigit(s[i]) {
			i++
		}
	}
	return i
}

func newlineLen(s string) int {
	switch {
	case strings.HasPrefix(s, "\n"):
		return 1
	case strings.HasPrefix(s, "\r\n"):
		return 2
	}
	return 0
}

func lineLen(s string) int {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return i
	}
	return len(s)
}

// blankLen is the length of the spaces and tabs at the start of s.
func blankLen(s string) int {
	i := 0
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	return i
}

// spaceLen is the length of the white space, line breaks included, at the
// start of s.
func spaceLen(s string) int {
	i := 0
	for i < len(s) && strings.IndexByte(" \t\r\n", s[i]) >= 0 {
		i++
	}
	return i
}

var armOps = []string{"!~=", ">=", "<=", "==", "!=", "~=", "&&", "||", "??"}

// armOpLen matches an operator that opens a match arm. A lone < or >
// needs a blank after it so that a <file.md> load on its own line is
// still a load.
func armOpLen(s string) int {
	for _, op := range armOps {
		if strings.HasPrefix(s, op) {
			return len(op)
		}
	}
	if len(s) >= 2 && (s[0] == '<' || s[0] == '>') && (s[1] == ' ' || s[1] == '\t') {
		return 2
	}
	return 0
}

// opType gives binary operators their own token types, so that the
// grammar matches "any comparison" with one token-type test instead of a
// participle branch per operator. Grammar literals such as '*' or '-'
// match by value and still see them.
func opType(op string) lexer.TokenType {
	switch op {
	case "??", "||", "&&", "==", "!=", "~=", "!~=", "<=", ">=", "<", ">":
		return tCmpOp
	case "+", "-", "*", "/", "%":
		return tArithOp
	}
	if len(op) == 1 {
		return tPunct
	}
	return tOp
}

var ops = []string{"...", "!~=", "=>", "==", "!=", "~=", "<=", ">=", "&&", "||", "??", "?.", "+="}

func opLen(s string) int {
	for _, op := range ops {
		if strings.HasPrefix(s, op) {
			return len(op)
		}
	}
	return 0
}

// bareKwLen matches a bare allow or retry ended by `;` or the end of its
// line, so that the next rule's condition is not taken as its value.
func bareKwLen(s string) int {
	var kw string
	for _, k := range bareKeywords {
		if strings.HasPrefix(s, k) {
			kw = k
			break
		}
	}
	if kw == "" {
		return 0
	}
	i := len(kw) + blankLen(s[len(kw):])
	if i < len(s) && s[i] == ';' {
		return i + 1
	}
	if n := newlineLen(s[i:]); n > 0 {
		return i + n
	}
	return 0
}

// pipeContinues reports whether a line starting with s (after its
// indentation) continues a pipeline: a single | (not ||).
func pipeContinues(s string) bool {
	return len(s) > 1 && s[0] == '|' && s[1] != '|'
}

// barePathLen matches an unquoted file path after `to` (`output @x to
// out/data.json`): letters, digits and _ . / - up to a blank or the end of
// the line, holding a . or / (so `to stdout` stays a word), starting with
// a letter, digit, _ or ./ and not ending in a dot.
func barePathLen(s string) int {
	i := 0
	for i < len(s) && (isAlnum(s[i]) || strings.IndexByte("_./-", s[i]) >= 0) {
		i++
	}
	p := s[:i]
	switch {
	case i == 0, !strings.ContainsAny(p, "./"), strings.HasSuffix(p, "."),
		!(isAlnum(p[0]) || p[0] == '_' || strings.HasPrefix(p, "./") || strings.HasPrefix(p, "../")):
		return 0
	case i < len(s) && strings.IndexByte(" \t\r\n;]", s[i]) < 0:
		return 0
	}
	return i
}

// bareKeywords may stand alone on a line; the loop controls may also
// close a block (`[continue]`).
var bareKeywords = []string{"allow", "retry", "done", "continue"}

var codeLangs = []string{"javascript", "js", "node", "python", "py", "bash", "sh", "cmd"}

// codeOpenLen matches `[run] lang {` or `run {`.
func codeOpenLen(s string) int {
	if strings.HasPrefix(s, "run") {
		if b := blankLen(s[3:]); b > 0 {
			if n := langOpenLen(s[3+b:]); n > 0 {
				return 3 + b + n
			}
		}
	}
	if n := langOpenLen(s); n > 0 {
		return n
	}
	if strings.HasPrefix(s, "run") {
		if i := 3 + blankLen(s[3:]); i < len(s) && s[i] == '{' {
			return i + 1
		}
	}
	return 0
}

func langOpenLen(s string) int {
	for _, lang := range codeLangs {
		if strings.HasPrefix(s, lang) {
			i := len(lang) + blankLen(s[len(lang):])
			if i < len(s) && s[i] == '(' {
				// `js (@a, @b) {`: the variables the block receives.
				j := strings.IndexAny(s[i:], ")\n")
				if j < 0 || s[i+j] != ')' {
					return 0
				}
				i += j + 1
				i += blankLen(s[i:])
			}
			if i < len(s) && s[i] == ':' {
				// `cmd:/path {`, `sh(@a):@dir {`: the working directory.
				i++
				i += blankLen(s[i:])
				n := strings.IndexAny(s[i:], " \t\r\n{}]")
				if n <= 0 {
					return 0
				}
				i += n
				i += blankLen(s[i:])
			}
			if i < len(s) && s[i] == '{' {
				return i + 1
			}
		}
	}
	return 0
}

// sqStringLen matches a whole '…' string, which may span lines, or
// returns 0.
func sqStringLen(s string) int {
	for i := 1; i < len(s); {
		switch s[i] {
		case '\'':
			return i + 1
		case '\\':
			if i+1 >= len(s) {
				return 0
			}
			i += 1 + runeLen(s[i+1:])
		default:
			i++
		}
	}
	return 0
}

// codeStringLen matches a quoted run inside a code body: "…" and '…' end
// at the line, `…` may span lines.
func codeStringLen(s string, q byte) int {
	for i := 1; i < len(s); {
		switch s[i] {
		case q:
			return i + 1
		case '\\':
			if i+1 >= len(s) {
				return 0
			}
			i += 1 + runeLen(s[i+1:])
		case '\n':
			if q != '`' {
				return 0
			}
			i++
		default:
			i++
		}
	}
	return 0
}

// fileLoadLen matches <path>: no blanks or angle brackets inside, and a
// first character that cannot start an operator or a quoted string.
func fileLoadLen(s string) int {
	if len(s) < 3 || strings.IndexByte(" \t\n\f\r<>=@!'\"", s[1]) >= 0 && !(s[1] == '@' && identLen(s[2:]) > 0) {
		// `<@path>` loads the file a variable names.
		return 0
	}
	i := 1 + runeLen(s[1:])
	for i < len(s) && strings.IndexByte(" \t\n\f\r<>", s[i]) < 0 {
		i++
	}
	if i < len(s) && s[i] != '>' {
		// `<path # section …>`: a section selector after blanks and #
		// runs to the > on the same line (quoted titles may hold one).
		j := i + blankLen(s[i:])
		if j == i || j >= len(s) || s[j] != '#' {
			return 0
		}
		i = j
		for quoted := false; i < len(s) && (quoted || s[i] != '>'); i++ {
			switch s[i] {
			case '"':
				quoted = !quoted
			case '\n', '\r':
				return 0
			}
		}
	}
	if i >= len(s) {
		return 0
	}
	i++
	if i < len(s) && s[i] == '?' {
		// `<path>?`: an optional load, touching the >.
		i++
	}
	return i
}

// textLen is the length of template text at the start of s: anything but
// the closer, @ and backslash (cmd templates keep backslashes out only so
// that `\@` is seen). As in mlld, an @ right after a word character
// still starts a reference (user@host interpolates @host; an undefined
// name stays as written); `\@` or `@@` make it text.
func textLen(s string, closer byte, cmd bool) int {
	i := 0
	for i < len(s) {
		c := s[i]
		if c == '@' || c == '\\' || !cmd && c == closer {
			return i
		}
		i++
	}
	return i
}
