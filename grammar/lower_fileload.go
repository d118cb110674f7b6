package grammar

import (
	"strings"

	"github.com/alecthomas/participle/v2/lexer"
	"github.com/guardrun/guardrun/ast"
)

// fileLoad lowers a `<path[ # section]>[?]` token with what follows it:
// field access and an `as` template.
func (l *lowerer) fileLoad(p *primary, at ast.Pos) *ast.FileLoad {
	out := l.fileLoadTok(p.Load.Tok, p.Pos, at)
	if p.Load.As != nil {
		out.As = l.str(p.Load.As)
	}
	if len(p.Load.Path) > 0 {
		r := l.ref(&ref{Pos: p.Pos, Name: "@_", Path: p.Load.Path})
		out.Access = r.Path
	}
	return out
}

// tplLoad lowers a `<path>` inside a template, with its field accessors.
func (l *lowerer) tplLoad(t *tplLoad) *ast.InterpPart {
	at := l.pos(t.Pos)
	fl := l.fileLoadTok(t.Tok, t.Pos, at)
	r := l.interp(&interp{Pos: t.Pos, Name: "@_", Path: t.Path})
	fl.Access = r.Value.(*ast.Ref).Path
	return &ast.InterpPart{Pos: at, Value: l.templatePipes(at, fl, t.Pipes)}
}

// fileLoadTok lowers the text of a <…> token at pos.
func (l *lowerer) fileLoadTok(tok string, pos lexer.Position, at ast.Pos) *ast.FileLoad {
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
			l.fail(pos, "Syntax error: empty section selector", tok, "name a heading after #, as in <guide.md # Overview>")
			return out
		}
		from := i + 1 + strings.Index(tok[i+1:end], sel)
		out.Section = l.loadTemplate(tok, pos, from, from+len(sel))
	}
	out.Path = l.loadTemplate(tok, pos, 1, pathEnd)
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
