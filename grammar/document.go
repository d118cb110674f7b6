package grammar

import (
	"fmt"
	"regexp"
	"runtime/debug"
	"strings"
	"sync"

	"github.com/guardrun/guardrun/ast"
)

// The keyword sets and tables of this package are switches (or built on
// first use), not package-level maps: a map literal is built when the
// process starts, and a hook process normally loads its policies' trees
// from the parse cache without running the parser at all.

// directiveKeywords reports whether kw is a directive guardrun runs.
func directiveKeywords(kw string) bool {
	switch kw {
	case "var", "show", "exe", "run", "when", "if",
		"for", "output", "append", "log", "import",
		"export", "guard", "policy", "let", "loop",
		"hook", "bail":
		return true
	}
	return false
}

// unsupportedKeywords reports whether kw is an mlld directive outside
// guardrun's subset; they are recognised so that a script using them fails
// clearly instead of printing the line.
func unsupportedKeywords(kw string) bool {
	switch kw {
	case "auth", "sign", "verify", "needs",
		"profiles", "stream", "box", "file", "files",
		"checkpoint", "while":
		return true
	}
	return false
}

// Compiled on first use: a hook process must not pay for patterns it
// never matches.
var (
	keywordRe    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*`) })
	invocationRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^@` + identPattern + `(?:\.` + identPattern + `)*\(`)
	})
	effectLineRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\|\s*(?:show|log|output|append)\b`) })
)

// lineKind classifies what starts at the beginning of a (trimmed) line.
type lineKind int

const (
	lineOther lineKind = iota
	lineDirective
	lineUnsupported
)

// knownDirectiveList names the directives for error hints.
const knownDirectiveList = "var, show, exe, run, when, if, for, output, append, log, import, export, guard, hook and policy"

// classify tells whether text (after any leading slash) starts a
// directive, and returns the keyword it found.
func classify(text string) (lineKind, string) {
	if strings.HasPrefix(text, "=>") {
		return lineDirective, "=>"
	}
	if invocationRe().MatchString(text) {
		return lineDirective, "@"
	}
	kw := keywordRe().FindString(text)
	if kw == "" {
		return lineOther, ""
	}
	if rest := text[len(kw):]; rest != "" && (isIdentByte(rest[0]) || rest[0] == '-') {
		return lineOther, ""
	}
	switch {
	case directiveKeywords(kw):
		return lineDirective, kw
	case unsupportedKeywords(kw):
		return lineUnsupported, kw
	}
	return lineOther, kw
}

func isIdentByte(b byte) bool {
	return b == '_' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9'
}

func isComment(trimmed string) bool {
	return strings.HasPrefix(trimmed, ">>") || strings.HasPrefix(trimmed, "<<")
}

func isFence(trimmed string) bool { return strings.HasPrefix(trimmed, "```") }

// Parse parses src (the contents of file) in the given mode. Errors are
// *Error values carrying file:line:col. A panic inside the parser (a
// guardrun bug) is returned as an *Error whose Cause is an
// *InternalError.
func Parse(file string, src []byte, mode ast.Mode) (doc *ast.Document, err error) {
	defer recoverInternal(file, &err)
	p := &docParser{src: newSource(file, string(src)), doc: &ast.Document{File: file, Mode: mode}}
	if err := p.run(); err != nil {
		return nil, err
	}
	if err := checkReservedNames(p.doc); err != nil {
		return nil, err
	}
	return p.doc, nil
}

// recoverInternal, deferred, turns a panic into an *Error at the start of
// file wrapping an *InternalError: the lowerer trusts the shape of
// participle's tree, and a mistake there must not take the host down.
func recoverInternal(file string, err *error) {
	if r := recover(); r != nil {
		ie := &InternalError{Value: r, Stack: debug.Stack()}
		*err = &Error{Pos: ast.Pos{File: file, Line: 1, Col: 1}, Message: ie.Error(), Hint: internalHint, Cause: ie}
	}
}

type docParser struct {
	src *source
	doc *ast.Document
	// lastTokenEnd is where the last directive's last token ends.
	lastTokenEnd int
}

func (p *docParser) run() error {
	text := p.src.text
	pos := p.frontmatter()
	if p.doc.Mode == ast.Strict {
		return p.strict(pos)
	}
	proseStart := pos
	inFence := false
	for pos < len(text) {
		end := lineEnd(text, pos)
		next := min(end+1, len(text))
		line := text[pos:end]
		trimmed := strings.TrimLeft(line, " \t")
		indent := len(line) - len(trimmed)
		switch {
		case inFence:
			inFence = !isFence(trimmed)
		case isFence(trimmed):
			inFence = true
		case isComment(trimmed):
			if err := p.prose(proseStart, pos); err != nil {
				return err
			}
			proseStart = next
		case strings.HasPrefix(trimmed, "/"):
			kind, kw := classify(trimmed[1:])
			if kind == lineOther {
				break
			}
			if err := p.prose(proseStart, pos); err != nil {
				return err
			}
			start := pos + indent
			if kind == lineUnsupported {
				return unsupported(p.src, start, kw)
			}
			dirEnd, err := p.directive(start, start+1)
			if err != nil {
				return err
			}
			switch {
			case p.endsInComment(p.lastTokenEnd, dirEnd):
				// As in mlld, a comment ending a directive's line takes the
				// line break with it: no blank line is left behind.
				dirEnd = min(lineEnd(text, dirEnd)+1, len(text))
			case kw == "show" && swallowsBlankLines(p.doc.Body[len(p.doc.Body)-1]):
				for dirEnd < len(text) && strings.IndexByte(" \t\r\n", text[dirEnd]) >= 0 {
					dirEnd++
				}
			case p.lastTokenEnd < dirEnd && strings.Trim(text[p.lastTokenEnd:dirEnd], " \t") == "":
				// Blanks after the directive are document text, as its
				// line break is.
				dirEnd = p.lastTokenEnd
				p.doc.Ends[p.doc.Body[len(p.doc.Body)-1]] = dirEnd
			}
			pos, proseStart = dirEnd, dirEnd
			continue
		}
		pos = next
	}
	return p.prose(proseStart, len(text))
}

// swallowsBlankLines reports whether a show directive consumes the
// whitespace after it, blank lines included. In mlld's grammar each show
// form ends with an optional-whitespace rule, except that a template or
// string followed by tail modifiers (`| @f`, `with {…}`) ends right after
// the tail: `show "x" | @f` keeps its line break and the blank lines that
// follow, while `show @v | @f` (a reference with a tail) still eats them.
func swallowsBlankLines(n ast.Node) bool {
	d, ok := n.(*ast.ShowDirective)
	if !ok {
		return true
	}
	switch v := d.Value.(type) {
	case *ast.ShowJoin, *ast.FileLoad:
		// `show foreach …` and `show <file>` end with the directive.
		return false
	case *ast.PipelineExpr:
		switch v.Source.(type) {
		case *ast.StringLit, *ast.FileLoad:
			return false
		}
	}
	return true
}

// frontmatter stores a leading --- block and returns where the body starts.
func (p *docParser) frontmatter() int {
	text := p.src.text
	if !strings.HasPrefix(text, "---\n") && !strings.HasPrefix(text, "---\r\n") {
		return 0
	}
	body := strings.IndexByte(text, '\n') + 1
	for pos := body; pos < len(text); {
		end := lineEnd(text, pos)
		if strings.TrimRight(text[pos:end], " \t\r") == "---" {
			p.doc.Frontmatter = text[body:pos]
			return min(end+1, len(text))
		}
		pos = end + 1
	}
	return 0
}

func (p *docParser) strict(pos int) error {
	text := p.src.text
	for pos < len(text) {
		end := lineEnd(text, pos)
		line := text[pos:end]
		trimmed := strings.TrimSpace(line)
		if trimmed == "" || isComment(trimmed) {
			pos = end + 1
			continue
		}
		start := pos + len(line) - len(strings.TrimLeft(line, " \t"))
		body := start
		if strings.HasPrefix(trimmed, "/") {
			body++
		}
		kind, kw := classify(text[body:end])
		switch kind {
		case lineUnsupported:
			return unsupported(p.src, start, kw)
		case lineOther:
			if body > start && kw != "" {
				// A slash followed by a word is meant as a directive.
				return &Error{Pos: p.src.posAt(start), Message: fmt.Sprintf("Unknown directive /%s", kw), Found: firstWords(trimmed),
					Hint: "directives are " + knownDirectiveList + "; in a .md file a line that is not a directive is prose"}
			}
			if strings.HasSuffix(p.src.file, ".guard") {
				// An agent policy is never prose: renaming it is no way out.
				return &Error{Pos: p.src.posAt(start), Message: "Text content not allowed in an agent policy (.guard is strict)", Found: firstWords(trimmed),
					Hint: "start the line with a directive (guard, var, exe, import, policy) or `>>` for a comment"}
			}
			return &Error{Pos: p.src.posAt(start), Message: "Text content not allowed in strict mode (.mld). Use .mld.md for prose.", Found: firstWords(trimmed), Hint: "start the line with a directive such as var, show or exe, or rename the file to .mld.md"}
		}
		dirEnd, err := p.directive(start, body)
		if err != nil {
			return err
		}
		pos = dirEnd
	}
	return nil
}

func unsupported(src *source, start int, kw string) error {
	return &Error{Pos: src.posAt(start), Message: fmt.Sprintf("unsupported directive %q: guardrun implements only a subset of mlld", kw), Found: kw, Hint: "supported directives: var show exe run when if for loop output append log import export guard policy let"}
}

func firstWords(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

// directive parses the directive whose slash (or first character) is at
// start and whose keyword text begins at body; it returns where it ends.
func (p *docParser) directive(start, body int) (int, error) {
	res := scanSpan(p.src.text, body)
	node, err := parseDirective(p.src, start, body, res)
	if err != nil {
		return 0, err
	}
	p.doc.Body = append(p.doc.Body, node)
	if p.doc.Ends == nil {
		p.doc.Ends = map[ast.Node]int{}
	}
	p.doc.Ends[node] = res.end
	p.lastTokenEnd = body
	for _, t := range res.tokens {
		if !t.EOF() {
			p.lastTokenEnd = body + t.Pos.Offset + len(t.Value)
		}
	}
	return res.end, nil
}

// endsInComment reports whether a `>>` or `<<` comment follows a
// directive's last token (which ends at last) on its last line (which
// ends at end).
func (p *docParser) endsInComment(last, end int) bool {
	text := p.src.text
	if end >= len(text) || last > end {
		return false
	}
	tail := strings.TrimLeft(text[last:end], " \t")
	return strings.HasPrefix(tail, ">>") || strings.HasPrefix(tail, "<<")
}

// prose appends src[from:to] as prose, turning a chunk made only of bare
// effect pipelines (`@x | log`) into statements.
func (p *docParser) prose(from, to int) error {
	if from >= to {
		return nil
	}
	text := p.src.text[from:to]
	if stmts := p.effectLines(from, to); stmts != nil {
		p.doc.Body = append(p.doc.Body, stmts...)
		return nil
	}
	p.appendProse(from, text)
	return nil
}

// appendProse merges prose split only by a removed comment line.
func (p *docParser) appendProse(from int, text string) {
	if n := len(p.doc.Body); n > 0 {
		if last, ok := p.doc.Body[n-1].(*ast.Prose); ok && last.Pos.Offset+len(last.Text) <= from {
			last.Text += text
			return
		}
	}
	p.doc.Body = append(p.doc.Body, &ast.Prose{Pos: p.src.posAt(from), Text: text})
}

func (p *docParser) effectLines(from, to int) []ast.Node {
	text := p.src.text
	var out []ast.Node
	proseFrom, found := from, false
	for pos := from; pos < to; {
		end := min(lineEnd(text, pos), to)
		trimmed := strings.TrimSpace(text[pos:end])
		if trimmed != "" {
			if !strings.HasPrefix(trimmed, "@") || !effectLineRe().MatchString(trimmed) {
				return nil
			}
			start := pos + strings.Index(text[pos:end], "@")
			res := scanSpan(text, start)
			if res.end > to {
				return nil
			}
			node, err := parseDirective(p.src, start, start, res)
			if err != nil {
				return nil
			}
			stmt, ok := node.(*ast.ExprStmt)
			if !ok || !isEffectPipeline(stmt.Value) {
				return nil
			}
			if proseFrom < pos {
				out = append(out, &ast.Prose{Pos: p.src.posAt(proseFrom), Text: text[proseFrom:pos]})
			}
			out = append(out, stmt)
			found = true
			pos, proseFrom = res.end, res.end
			continue
		}
		pos = end + 1
	}
	if !found {
		return nil
	}
	if proseFrom < to {
		out = append(out, &ast.Prose{Pos: p.src.posAt(proseFrom), Text: text[proseFrom:to]})
	}
	return out
}

func isEffectPipeline(e ast.Expr) bool {
	pl, ok := e.(*ast.PipelineExpr)
	if !ok {
		return false
	}
	for _, s := range pl.Stages {
		if s.Kind == ast.StageEffect {
			return true
		}
	}
	return false
}
