package grammar

import (
	"strings"

	"github.com/guardrun/guardrun/ast"
)

// fileLoad lowers a `<path[ # section]>[?]` token with what follows it:
// field access and an `as` template.
func (l *lowerer) fileLoad(p *primary, at ast.Pos) *ast.FileLoad {
	tok := p.Load.Tok
	out := &ast.FileLoad{Pos: at}
	end := len(tok) - 1 // the closing >
	if strings.HasSuffix(tok, ">?") {
		out.Optional = true
		end--
	}
	pathEnd := end
	if i := sectionStart(tok[:end]); i > 0 {
		pathEnd = i
		for pathEnd > 1 && (tok[pathEnd-1] == ' ' || tok[pathEnd-1] == '\t') {
			pathEnd--
		}
		sel := strings.TrimSpace(tok[i+1 : end])
		if sel == "" {
			l.fail(p.Pos, "Syntax error: empty section selector", tok, "name a heading after #, as in <guide.md # Overview>")
			return out
		}
		from := i + 1 + strings.Index(tok[i+1:end], sel)
		out.Section = l.loadTemplate(p, from, from+len(sel))
	}
	out.Path = l.loadTemplate(p, 1, pathEnd)
	if p.Load.As != nil {
		out.As = l.str(p.Load.As)
	}
	if len(p.Load.Path) > 0 {
		r := l.ref(&ref{Pos: p.Pos, Name: "@_", Path: p.Load.Path})
		out.Access = r.Path
	}
	return out
}

// sectionStart is the offset of the # that opens a section selector in
// the text of a <…> token, or -1.
func sectionStart(tok string) int {
	for i := 1; i < len(tok); i++ {
		if tok[i] == '#' && (tok[i-1] == ' ' || tok[i-1] == '\t') {
			return i
		}
	}
	return -1
}
