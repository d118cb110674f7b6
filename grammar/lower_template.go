package grammar

import (
	"strconv"
	"strings"

	"github.com/alecthomas/participle/v2/lexer"
	"github.com/guardrun/guardrun/ast"
)

func (l *lowerer) str(s *strLit) *ast.StringLit {
	lit := l.strParts(s)
	lit.Raw = l.strRaw(s)
	return lit
}

// strRaw is a literal's source text, delimiters included.
func (l *lowerer) strRaw(s *strLit) string {
	n := len(s.Tokens)
	if n == 0 {
		return ""
	}
	last := s.Tokens[n-1]
	// The first token may be an elided line break before the literal.
	return strings.TrimLeft(l.text[s.Tokens[0].Pos.Offset:last.Pos.Offset+len(last.Value)], " \t\r\n")
}

func (l *lowerer) strParts(s *strLit) *ast.StringLit {
	at := l.pos(s.Pos)
	switch {
	case s.SQ != nil:
		return &ast.StringLit{Pos: at, Kind: ast.SingleQuote, Parts: []ast.TemplatePart{&ast.TextPart{Pos: at, Text: unescapeSingle((*s.SQ)[1 : len(*s.SQ)-1])}}}
	case s.DQ:
		return &ast.StringLit{Pos: at, Kind: ast.DoubleQuote, Parts: l.parts(s.DQParts, unescapeDouble)}
	case s.BT:
		return &ast.StringLit{Pos: at, Kind: ast.Backtick, Parts: l.parts(s.BTParts, unescapeDouble)}
	case s.Colon:
		return &ast.StringLit{Pos: at, Kind: ast.DoubleColon, Parts: trimFormattingNewlines(l.parts(s.CParts, unescapeDouble))}
	}
	lit := &ast.StringLit{Pos: at, Kind: ast.TripleColon, Parts: []ast.TemplatePart{}}
	for _, tp := range s.TParts {
		p := l.pos(tp.Pos)
		if tp.Text != nil {
			lit.Parts = appendText(lit.Parts, p, *tp.Text)
			continue
		}
		r := &ast.Ref{Pos: p, Name: *tp.Name}
		for _, f := range tp.Fields {
			fp := l.pos(f.Pos)
			switch {
			case f.Name != nil:
				r.Path = append(r.Path, ast.Accessor{Pos: fp, Kind: ast.AccessField, Name: *f.Name})
			case f.Index != nil:
				n, _ := strconv.ParseFloat(*f.Index, 64)
				r.Path = append(r.Path, ast.Accessor{Pos: fp, Kind: ast.AccessIndex, Index: &ast.NumberLit{Pos: fp, Value: n, Raw: *f.Index}})
			case f.Key != nil:
				key := (*f.Key)[1 : len(*f.Key)-1]
				r.Path = append(r.Path, ast.Accessor{Pos: fp, Kind: ast.AccessIndex, Index: &ast.StringLit{Pos: fp, Kind: ast.DoubleQuote,
					Parts: []ast.TemplatePart{&ast.TextPart{Pos: fp, Text: key}}}})
			}
		}
		lit.Parts = append(lit.Parts, &ast.InterpPart{Pos: p, Value: r})
	}
	lit.Parts = trimFormattingNewlines(lit.Parts)
	return lit
}

// appendText merges adjacent literal text into one part.
func appendText(parts []ast.TemplatePart, p ast.Pos, text string) []ast.TemplatePart {
	if n := len(parts); n > 0 {
		if t, ok := parts[n-1].(*ast.TextPart); ok {
			t.Text += text
			return parts
		}
	}
	return append(parts, &ast.TextPart{Pos: p, Text: text})
}

func (l *lowerer) parts(ps []*part, unescape func(string) string) []ast.TemplatePart {
	out := []ast.TemplatePart{}
	for _, pt := range ps {
		p := l.pos(pt.Pos)
		switch {
		case pt.Text != nil:
			out = appendText(out, p, *pt.Text)
		case pt.Esc != nil:
			out = appendText(out, p, unescape(*pt.Esc))
		case pt.AtAt:
			out = appendText(out, p, "@")
		case pt.Interp != nil:
			out = append(out, l.interp(pt.Interp))
		case pt.Load != nil:
			out = append(out, l.tplLoad(pt.Load))
		case pt.For != nil:
			out = append(out, l.tplFor(pt.For, unescape))
		}
	}
	return out
}

func (l *lowerer) tplFor(f *tplFor, unescape func(string) string) *ast.TemplateFor {
	out := &ast.TemplateFor{Pos: l.pos(f.Pos), Var: f.First[1:], Source: l.expr(f.Source), Body: l.parts(f.Body, unescape)}
	if f.Second != nil {
		out.Key, out.Var = out.Var, (*f.Second)[1:]
	}
	return out
}

// trimFormattingNewlines drops the line break right after the opening
// :: or ::: and the one right before the closing delimiter, as mlld does,
// so that a template may start and end on lines of its own.
func trimFormattingNewlines(parts []ast.TemplatePart) []ast.TemplatePart {
	if len(parts) > 0 {
		if t, ok := parts[0].(*ast.TextPart); ok && strings.HasPrefix(t.Text, "\n") {
			t.Text = t.Text[1:]
			if t.Text == "" {
				parts = parts[1:]
			}
		}
	}
	if n := len(parts); n > 0 {
		if t, ok := parts[n-1].(*ast.TextPart); ok && strings.HasSuffix(t.Text, "\n") {
			t.Text = t.Text[:len(t.Text)-1]
			if t.Text == "" {
				parts = parts[:n-1]
			}
		}
	}
	return parts
}

func (l *lowerer) interp(in *interp) *ast.InterpPart {
	p := l.pos(in.Pos)
	r := &ast.Ref{Pos: p, Name: in.Name[1:]}
	for _, a := range in.Path {
		ap := l.pos(a.Pos)
		switch {
		case a.Field != nil:
			r.Path = append(r.Path, ast.Accessor{Pos: ap, Kind: ast.AccessField, Name: (*a.Field)[1:]})
		default:
			r.Path = append(r.Path, l.bracketAccessor(ap, a.Wild, a.Index, a.Args))
		}
	}
	out := &ast.InterpPart{Pos: p, Value: l.templatePipes(p, r, in.Pipes), OmitFalsy: in.Omit || in.Cond || in.CondDQ}
	if off := in.Pos.Offset; off > 0 && off <= len(l.text) && isAlnum(l.text[off-1]) {
		out.AfterWord = true
	}
	switch {
	case in.Cond:
		out.Snippet = l.parts(in.Snippet, func(s string) string { return s[1:] })
	case in.CondDQ:
		out.Snippet = l.parts(in.Fragment, unescapeDouble)
	}
	if in.Fallback != nil {
		out.Fallback = l.primary(in.Fallback)
	}
	return out
}

// cmdTemplate parses text (a cmd body or a <path>) as a command template.
// l.base must be the offset of text in the file.
func (l *lowerer) cmdTemplate(text string, at lexer.Position) *ast.StringLit {
	lit := &ast.StringLit{Pos: l.src.posAt(l.base), Kind: ast.Backtick, Parts: []ast.TemplatePart{}, Raw: text}
	tree, err := parseCmdText(text)
	if err != nil {
		l.err = convertParseError(l.src, l.base, text, scanResult{}, err)
		return lit
	}
	lit.Parts = l.parts(tree.Parts, func(s string) string { return s[1:] })
	return lit
}

// unescapeDouble resolves a backslash escape in "…" strings and
// templates. Unknown escapes drop the backslash, so `@x\-y` ends the
// reference and keeps the hyphen.
func unescapeDouble(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		switch s[i] {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case '0':
			b.WriteByte(0)
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

// unescapeSingle keeps '…' literal apart from escaped quotes and
// backslashes.
func unescapeSingle(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	return strings.NewReplacer(`\'`, `'`, `\\`, `\`).Replace(s)
}

// templatePipes applies the condensed pipes of a template reference
// (`@x|@upper|@trim`) to src: a pipeline whose stages are calls of the
// named transformers or exes, without arguments.
func (l *lowerer) templatePipes(at ast.Pos, src ast.Expr, pipes []*tplPipe) ast.Expr {
	if len(pipes) == 0 {
		return src
	}
	pl := &ast.PipelineExpr{Pos: at, Source: src}
	for _, pp := range pipes {
		pos := l.pos(pp.Pos)
		names := strings.Split(pp.Text[2:], ".")
		r := &ast.Ref{Pos: pos, Name: names[0]}
		for _, f := range names[1:] {
			r.Path = append(r.Path, ast.Accessor{Pos: pos, Kind: ast.AccessField, Name: f})
		}
		pl.Stages = append(pl.Stages, &ast.Stage{Pos: pos, Kind: ast.StageCall, Call: r})
	}
	return pl
}
