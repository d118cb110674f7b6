package grammar

import (
	"errors"
	"testing"

	"github.com/guardrun/guardrun/ast"
	"github.com/stretchr/testify/require"
)

func parseMD(t *testing.T, src string) *ast.Document {
	t.Helper()
	doc, err := Parse("t.md", []byte(src), ast.Markdown)
	require.NoError(t, err)
	return doc
}

func parseStrict(t *testing.T, src string) *ast.Document {
	t.Helper()
	doc, err := Parse("t.mld", []byte(src), ast.Strict)
	require.NoError(t, err)
	return doc
}

func TestProseAssembly(t *testing.T) {
	tests := []struct {
		name  string
		src   string
		prose []string
	}{
		{"var newline goes to next prose", "# H\n/var @a = 1\n\n## X", []string{"# H\n", "\n\n## X"}},
		{"show swallows blank lines", "/show \"x\"\n\n## Next\n", []string{"## Next\n"}},
		{"comment line vanishes", "a\n>> note\nb\n", []string{"a\nb\n"}},
		{"fenced directives stay prose", "```\n/show \"x\"\n```\n", []string{"```\n/show \"x\"\n```\n"}},
		{"unknown slash word is prose", "/end of text\n", []string{"/end of text\n"}},
		{"show of a piped template keeps its line break", "/show \"a\" | @f\n\n## Next\n", []string{"\n\n## Next\n"}},
		{"show of a piped reference swallows blank lines", "/show @a | @f\n\n## Next\n", []string{"## Next\n"}},
		{"email is prose", "mail alice@example.com | show\n", []string{"mail alice@example.com | show\n"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			doc := parseMD(t, tc.src)
			var got []string
			for _, n := range doc.Body {
				if p, ok := n.(*ast.Prose); ok {
					got = append(got, p.Text)
				}
			}
			require.Equal(t, tc.prose, got)
		})
	}
}

func TestFrontmatter(t *testing.T) {
	doc := parseMD(t, "---\ntitle: x\n---\nbody\n")
	require.Equal(t, "title: x\n", doc.Frontmatter)
	require.Equal(t, "body\n", doc.Body[0].(*ast.Prose).Text)
}

func TestEffectPipelineProse(t *testing.T) {
	doc := parseMD(t, "/var @d = \"x\"\n@d | log\n/show \"after\"\n")
	require.IsType(t, &ast.ExprStmt{}, doc.Body[2])
	pl := doc.Body[2].(*ast.ExprStmt).Value.(*ast.PipelineExpr)
	require.Equal(t, ast.StageEffect, pl.Stages[0].Kind)
	require.Equal(t, "log", pl.Stages[0].Effect.Kind)
}

func TestVarLabelsAndPositions(t *testing.T) {
	doc := parseMD(t, "intro\n  /var secret, pii @k-2 = \"abc\"\n")
	v := doc.Body[1].(*ast.VarDirective)
	require.Equal(t, []string{"secret", "pii"}, v.Labels)
	require.Equal(t, "k-2", v.Name)
	require.Equal(t, 2, v.Pos.Line)
	require.Equal(t, 3, v.Pos.Col)
	require.Equal(t, 2, v.Value.Position().Line)
	require.Equal(t, 27, v.Value.Position().Col)
}

func TestExeBodies(t *testing.T) {
	tests := []struct {
		src  string
		body any
	}{
		{"exe @f(a) = `hi @a`", &ast.StringLit{}},
		{"exe @f(a) = cmd {echo \"@a\" | tr a b}", &ast.CodeExpr{}},
		{"exe @f(a) = js { return {x: `${a}}`}; }", &ast.CodeExpr{}},
		{"exe @f(a) = when [ @a => 1; * => 2 ]", &ast.WhenExpr{}},
		{"exe @f(a) = [\n let @x = @a\n show @x\n => @x\n]", &ast.BlockExpr{}},
		{"exe @f(xs) = for @x in @xs => @g(@x)", &ast.ForExpr{}},
		{"exe @f(xs) = foreach @g(@xs)", &ast.ForeachExpr{}},
		{"exe @f(a) = @g(@a) | @h", &ast.PipelineExpr{}},
		{"exe @f(a) = @a", &ast.Ref{}},
		{"exe @f(input) = run @input | { cat }", &ast.PipelineExpr{}},
		{"exe @f(input) = run cmd { cat } with { stdin: @input }", &ast.PipelineExpr{}},
		{"exe @f() = :::Hi {{name.first}} @x:::", &ast.StringLit{}},
	}
	for _, tc := range tests {
		t.Run(tc.src, func(t *testing.T) {
			doc := parseStrict(t, tc.src)
			require.IsType(t, tc.body, doc.Body[0].(*ast.ExeDirective).Body)
		})
	}
}

func TestCodeBlockKeepsRawBody(t *testing.T) {
	doc := parseStrict(t, "exe @f(a) = js { if (a) { return \"}\"; } }")
	c := doc.Body[0].(*ast.ExeDirective).Body.(*ast.CodeExpr)
	require.Equal(t, "js", c.Lang)
	require.Equal(t, ` if (a) { return "}"; } `, c.Code)
	require.Nil(t, c.Command)

	doc = parseStrict(t, `run cmd {echo "@name.first" \@x}`)
	c = doc.Body[0].(*ast.RunDirective).Value.(*ast.CodeExpr)
	require.True(t, c.Run)
	require.Equal(t, "cmd", c.Lang)
	parts := c.Command.Parts
	require.Equal(t, "echo \"", parts[0].(*ast.TextPart).Text)
	ref := parts[1].(*ast.InterpPart).Value.(*ast.Ref)
	require.Equal(t, "name", ref.Name)
	require.Equal(t, "first", ref.Path[0].Name)
	require.Equal(t, "\" @x", parts[2].(*ast.TextPart).Text)
}

func TestTemplateInterpolation(t *testing.T) {
	doc := parseStrict(t, "show `Hi @name. @x\\-y @@ a@b.c @v? @w??\"d\" @s.trim().slice(0, 2)`")
	parts := doc.Body[0].(*ast.ShowDirective).Value.(*ast.StringLit).Parts
	var kinds []string
	for _, p := range parts {
		switch p := p.(type) {
		case *ast.TextPart:
			kinds = append(kinds, "text:"+p.Text)
		case *ast.InterpPart:
			s := "ref:" + p.Value.(*ast.Ref).Name
			if p.OmitFalsy {
				s += "?"
			}
			if p.Fallback != nil {
				s += "??"
			}
			kinds = append(kinds, s)
		}
	}
	require.Equal(t, []string{"text:Hi ", "ref:name", "text:. ", "ref:x", "text:-y @ a", "ref:b", "text: ", "ref:v?", "text: ", "ref:w??", "text: ", "ref:s"}, kinds)
	single := parseStrict(t, "var @x = 'no @interp'").Body[0].(*ast.VarDirective).Value.(*ast.StringLit)
	require.Equal(t, ast.SingleQuote, single.Kind)
	require.Equal(t, "no @interp", single.Parts[0].(*ast.TextPart).Text)
}

func TestExpressions(t *testing.T) {
	doc := parseStrict(t, "var @x = @a || @b && !@c == 1 + 2 * 3")
	or := doc.Body[0].(*ast.VarDirective).Value.(*ast.BinaryExpr)
	require.Equal(t, "||", or.Op)
	and := or.Right.(*ast.BinaryExpr)
	require.Equal(t, "&&", and.Op)
	eq := and.Right.(*ast.BinaryExpr)
	require.Equal(t, "==", eq.Op)
	require.IsType(t, &ast.UnaryExpr{}, eq.Left)
	require.Equal(t, "+", eq.Right.(*ast.BinaryExpr).Op)

	// Only objects spread (mlld 2.0.5): `[...@xs]` is a parse error.
	doc = parseStrict(t, "var @y = [@xs, @z?, { a: 1, \"k\"?: @v, ...@o }]")
	arr := doc.Body[0].(*ast.VarDirective).Value.(*ast.ArrayLit)
	require.False(t, arr.Items[0].Spread)
	require.True(t, arr.Items[1].Optional)
	obj := arr.Items[2].Value.(*ast.ObjectLit)
	require.True(t, obj.Entries[1].Optional)
	require.True(t, obj.Entries[2].Spread)

	doc = parseStrict(t, "var @t = @x[*].name[0]?.k")
	r := doc.Body[0].(*ast.VarDirective).Value.(*ast.Ref)
	require.Equal(t, []ast.AccessKind{ast.AccessWildcard, ast.AccessField, ast.AccessIndex, ast.AccessField}, []ast.AccessKind{r.Path[0].Kind, r.Path[1].Kind, r.Path[2].Kind, r.Path[3].Kind})
	require.True(t, r.Path[3].Optional)
}

func TestPipelines(t *testing.T) {
	doc := parseStrict(t, "var @o = @s() | || @a(@input) || @b | @c with { pipeline: [@d, [@e, @f], show @mx.input], stdin: @k }")
	pl := doc.Body[0].(*ast.VarDirective).Value.(*ast.PipelineExpr)
	require.Equal(t, ast.StageParallel, pl.Stages[0].Kind)
	require.Len(t, pl.Stages[0].Parallel, 2)
	require.Equal(t, "c", pl.Stages[1].Call.Name)
	require.Len(t, pl.With.Pipeline, 3)
	require.Equal(t, ast.StageParallel, pl.With.Pipeline[1].Kind)
	require.Equal(t, ast.StageEffect, pl.With.Pipeline[2].Kind)
	require.Equal(t, "stdin", pl.With.Options.Entries[0].Key)

	doc = parseStrict(t, "var @r = \"x\" with { pipeline: [@f] }")
	pl = doc.Body[0].(*ast.VarDirective).Value.(*ast.PipelineExpr)
	require.True(t, pl.FromWith)
	require.Len(t, pl.Stages, 1)

	doc = parseStrict(t, "run @payload | cmd {cat}")
	pl = doc.Body[0].(*ast.RunDirective).Value.(*ast.PipelineExpr)
	require.Equal(t, ast.StageCode, pl.Stages[0].Kind)

	doc = parseStrict(t, "var @a = @x | append \"f.jsonl\" | output to stderr")
	pl = doc.Body[0].(*ast.VarDirective).Value.(*ast.PipelineExpr)
	require.Nil(t, pl.Stages[0].Effect.Value)
	require.NotNil(t, pl.Stages[0].Effect.Target.Path)
	require.Equal(t, "stderr", pl.Stages[1].Effect.Target.Stream)
}

func TestWhenForms(t *testing.T) {
	doc := parseStrict(t, "when [\n  @a => show \"a\"\n  let @n = 1\n  @n += 2\n  @b => output @x to \"f.txt\"\n  none => log @y\n]")
	w := doc.Body[0].(*ast.WhenDirective).When
	require.Len(t, w.Arms, 5)
	require.True(t, w.Arms[1].Let)
	require.IsType(t, &ast.AugmentStmt{}, w.Arms[2].Action)
	require.IsType(t, &ast.OutputDirective{}, w.Arms[3].Action)
	require.Equal(t, ast.ArmNone, w.Arms[4].Kind)

	doc = parseStrict(t, "var @t = when @score: [\n  >= 0.7 => \"high\"\n  * => \"low\"\n]")
	w = doc.Body[0].(*ast.VarDirective).Value.(*ast.WhenExpr)
	require.Equal(t, "score", w.Subject.(*ast.Ref).Name)
	cond := w.Arms[0].Cond.(*ast.BinaryExpr)
	require.Nil(t, cond.Left)

	doc = parseStrict(t, "when @ok => run @greet(\"w\")")
	w = doc.Body[0].(*ast.WhenDirective).When
	require.True(t, w.Inline)
	require.IsType(t, &ast.RunDirective{}, w.Arms[0].Action)
}

func TestGuards(t *testing.T) {
	tests := []struct {
		src, name, timing, trigger string
		priv                       bool
	}{
		{"guard @g before op:cmd:git = when [ * => allow ]", "g", "before", "op:cmd:git", false},
		{"guard after @g for secret = when [ * => allow ]", "g", "after", "secret", false},
		{"guard @g for op:exe = when [ * => allow ]", "g", "before", "op:exe", false},
		{"guard before secret = when [ * => allow ]", "", "before", "secret", false},
		{"guard privileged @b after pii = when [ * => clear! @output ]", "b", "after", "pii", true},
		{"guard @g always op:exe = when [ * => allow ] with { privileged: true }", "g", "always", "op:exe", true},
	}
	for _, tc := range tests {
		t.Run(tc.src, func(t *testing.T) {
			g := parseStrict(t, tc.src).Body[0].(*ast.GuardDirective)
			require.Equal(t, tc.name, g.Name)
			require.Equal(t, tc.timing, g.Timing)
			require.Equal(t, tc.trigger, g.Trigger)
			require.Equal(t, tc.priv, g.Privileged)
		})
	}
	g := parseStrict(t, "guard @g before secret = when [\n  @x => allow\n  @y => deny \"no @x\"\n  * => trusted!,!secret @output\n]").Body[0].(*ast.GuardDirective)
	require.IsType(t, &ast.AllowExpr{}, g.Body.Arms[0].Action)
	require.Equal(t, "no @x", g.Body.Arms[1].Action.(*ast.DenyExpr).Reason)
	require.Equal(t, []string{"trusted!", "!secret"}, g.Body.Arms[2].Action.(*ast.LabelExpr).Labels)
}

func TestImportExportAndMore(t *testing.T) {
	doc := parseStrict(t, "import { @a, @b as @c } from \"./m.mld\"\nimport { * } from \"./n.mld\"\nimport \"./o.mld\" as @ns\nimport policy @p from \"./p.mld\"\nexport { @a, @b }\npolicy @p = union(@cfg)\n=> @a\n@f(1)\nfor @k, @v in @obj when @v => show @k\nif @a [ show \"y\" ] else [ show \"n\" ]\noutput @x to \"f\" as json\nappend @x to \"g\"\nlog @x")
	imp := doc.Body[0].(*ast.ImportDirective)
	require.Equal(t, []ast.ImportName{{Pos: imp.Names[0].Pos, Name: "a"}, {Pos: imp.Names[1].Pos, Name: "b", Alias: "c"}}, imp.Names)
	require.Equal(t, "./m.mld", imp.Path)
	require.True(t, doc.Body[1].(*ast.ImportDirective).All)
	require.Equal(t, "ns", doc.Body[2].(*ast.ImportDirective).Namespace)
	require.True(t, doc.Body[3].(*ast.ImportDirective).Policy)
	require.Equal(t, []string{"a", "b"}, doc.Body[4].(*ast.ExportDirective).Names)
	require.IsType(t, &ast.PolicyDirective{}, doc.Body[5])
	require.IsType(t, &ast.ReturnStmt{}, doc.Body[6])
	require.True(t, doc.Body[7].(*ast.RunDirective).Bare)
	f := doc.Body[8].(*ast.ForDirective).For
	require.Equal(t, "k", f.Key)
	require.NotNil(t, f.Filter)
	require.IsType(t, &ast.BlockExpr{}, doc.Body[9].(*ast.IfDirective).Else)
	require.Equal(t, "json", doc.Body[10].(*ast.OutputDirective).Format)
	require.IsType(t, &ast.AppendDirective{}, doc.Body[11])
	require.IsType(t, &ast.LogDirective{}, doc.Body[12])
}

func TestStrictIgnoresBlankAndComments(t *testing.T) {
	doc := parseStrict(t, "\n>> c\n/var @x = 1\nshow @x\n")
	require.Len(t, doc.Body, 2)
}

func TestErrors(t *testing.T) {
	tests := []struct {
		name, src string
		mode      ast.Mode
		line, col int
		msg       string
	}{
		{"strict prose", "var @a = 1\nhello", ast.Strict, 2, 1, "Text content not allowed in strict mode"},
		{"space labels", "/var a b @x = 1", ast.Markdown, 1, 1, "Invalid var syntax"},
		{"space exe labels", "exe a b @f() = 1", ast.Strict, 1, 1, "Invalid exe syntax"},
		{"unterminated template", "text\n/show `abc\nmore", ast.Markdown, 2, 7, "Unterminated backtick template"},
		{"unbalanced code", "exe @f() = js { {", ast.Strict, 1, 12, "Unbalanced braces"},
		{"two show args", "show \"a\" @b", ast.Strict, 1, 10, "show accepts only a single argument"},
		{"trailing garbage", "var @a = 1 )", ast.Strict, 1, 12, "Syntax error"},
		{"unsupported", "/checkpoint @h = 1", ast.Markdown, 1, 1, "unsupported directive"},
		{"deny needs quotes", "guard @g before secret = when [ * => deny @x ]", ast.Strict, 1, 43, "Guard deny actions require a quoted reason"},
		{"filter segments", "guard @g before op:a:b:c = when [ * => allow ]", ast.Strict, 1, 17, `":" found`},
		{"when all", "when all [ @a => show @a ]", ast.Strict, 1, 6, "The 'all' modifier has been removed"},
		{"none placement", "when [ none => show \"1\"\n @a => show \"2\" ]", ast.Strict, 2, 2, "must be the last"},
		{"unterminated single", "var @x = 'abc", ast.Strict, 1, 10, "Unterminated single-quoted string"},
		{"cmd and", "var @a = 1\nrun cmd {echo a && echo b}", ast.Strict, 2, 17, "Shell operator && is not allowed"},
		{"cmd redirect", "exe @f() = cmd {ls 2>&1}", ast.Strict, 1, 21, "redirection operator >&"},
		{"cmd semicolon", "run {a; b}", ast.Strict, 1, 7, "semicolon"},
		{"cmd background", "run cmd {sleep 1 &}", ast.Strict, 1, 18, "Background execution"},
		{"allow takes star", "guard @g before secret = when [ @x => allow * => deny \"x\" ]", ast.Strict, 1, 45, "bare allow followed by *"},
		{"stray /end in :: template", "var @m = ::\n/for @x in @a\n@x\n", ast.Strict, 1, 10, "Unterminated :: template"},
		{"dotted for key", "var @p = for @k.path, @v in @o => @v", ast.Strict, 1, 14, `Cannot access field "path" on loop key "@k"`},
		{"templates import needs params", `import templates from "./t" as @t`, ast.Strict, 1, 8, "Templates import requires parameters"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("f.mld", []byte(tc.src), tc.mode)
			require.Error(t, err)
			var perr *Error
			require.True(t, errors.As(err, &perr))
			require.Contains(t, perr.Message, tc.msg)
			require.Equal(t, "f.mld", perr.Pos.File)
			require.Equal(t, tc.line, perr.Pos.Line, "line")
			require.Equal(t, tc.col, perr.Pos.Col, "col")
			require.NotEmpty(t, perr.Hint)
		})
	}
}

func TestWalkVisitsRefs(t *testing.T) {
	doc := parseStrict(t, "var @x = @a(@b) | @c\nshow `@d`")
	var names []string
	ast.Inspect(doc, func(n ast.Node) bool {
		if r, ok := n.(*ast.Ref); ok {
			names = append(names, r.Name)
		}
		return true
	})
	require.Equal(t, []string{"a", "b", "c", "d"}, names)
}

// A deny reason or ask question in a template form is kept as a template
// (a double-quoted one stays literal text, as in mlld); any other value is
// an error that says how to write one.
func TestGuardReasonTemplates(t *testing.T) {
	g := parseStrict(t, "guard @g before op:exe = when [\n  @a => deny `to @mx.args.to`\n  @b => ask ::Pay @mx.args.n\\?:: with { message: \"m\" }\n  @c => deny :::{{x}}:::\n  * => deny \"no @x\"\n]").Body[0].(*ast.GuardDirective)
	d := g.Body.Arms[0].Action.(*ast.DenyExpr)
	require.Equal(t, "", d.Reason)
	require.Equal(t, ast.Backtick, d.Template.Kind)
	require.Equal(t, "`to @mx.args.to`", d.Template.Raw)
	require.IsType(t, &ast.InterpPart{}, d.Template.Parts[1])
	a := g.Body.Arms[1].Action.(*ast.AskExpr)
	require.Equal(t, ast.DoubleColon, a.Template.Kind)
	require.NotNil(t, a.With)
	require.Equal(t, ast.TripleColon, g.Body.Arms[2].Action.(*ast.DenyExpr).Template.Kind)
	lit := g.Body.Arms[3].Action.(*ast.DenyExpr)
	require.Nil(t, lit.Template)
	require.Equal(t, "no @x", lit.Reason)

	for _, src := range []string{
		"guard @g before secret = when [ * => deny @x ]",
		"guard @g before secret = when [ * => ask [1] ]",
	} {
		_, err := Parse("p.guard", []byte(src), ast.Strict)
		var perr *Error
		require.ErrorAs(t, err, &perr, src)
		require.Equal(t, 1, perr.Pos.Line)
		require.Contains(t, perr.Hint, "or a template to quote values", src)
	}
}
