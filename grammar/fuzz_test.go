package grammar

import (
	"errors"
	"strings"
	"testing"

	"github.com/guardrun/guardrun/ast"
)

var fuzzSeeds = []string{
	"# T\n/var secret,pii @k = \"abc\"\n/show `k=@k`\n",
	"/exe @f(a, b: string) = when [ @a => `x @b`; * => js { return {a: 1} } ]\n",
	"/guard @g before op:cmd = when [\n  @mx.op.type == \"run\" => deny \"no\"\n  * => allow\n]\n",
	"/var @o = @s() | @a || @b | show \"X @mx.try\" | cmd { tr a-z A-Z } with { pipeline: [@c, [@d, @e]] }\n",
	"/for @k, @v in @obj when @v => show :::{{k}} @v:::\n",
	"/if @a [ let @x = 1; @x += 2; => pii @x ] else [ show 'n' ]\n",
	"/var @t = when @s: [ >= 1 && < 3 => \"a\"\n none => \"b\" ]\n",
	"/import { @a, @b as @c } from \"./m.mld\"\n/export { * }\n@x | log\n",
	"```\n/show \"fenced\"\n```\n>> comment\n/run @p | { cat } with { stdin: @x }\n",
	"---\na: 1\n---\n/@f(@x?.y[0][*], -1, !true, <file.md>)\n",
	"/show ::a `b` @c?  @d??\"e\" @f\\-g::\n",
	"/var @x = [1, 2\n",
	"/show `unterminated\n",
	"/exe @f() = js { {\n",
	"/var @m = ::\n/for @k, @v in @o\n- @k: @v\n/end\n::\n/show @m\n",
	"/var @t = when @s [\n  >= 0.3 && < 0.7 => \"a\"\n  <file.md> => \"b\"\n]\n",
	"/run cmd {echo \"a && b\" | tr a b; c 2>&1 &}\n",
	"/guard @g before secret = when [ @x => allow * => deny \"x\" ]\n/show `a@@b` | @f\n\n",
	"/hook @h before @f(\"src/\") = [ => @input ]\n/hook after op:for:iteration = when [ * => show @output ]\n",
	"/guard @g before op:exe = when [\n  @mx.args.n > 1 => ask `Pay @mx.args.n\\?` with { message: \"m\" }\n  @x => deny ::@mx.args.to @y?`z` @@w::\n  * => deny :::{{a}} no:::\n]\n",
}

// deepSeeds just pass the limits in nesting.go (without them such input
// overflowed the stack, which kills the process). They are kept small:
// the fuzzer minimises every new interesting input, which is slow on big
// ones.
var deepSeeds = []string{
	"/var @x = " + strings.Repeat("[", maxNesting+1) + "\n",
	"/var @x = " + strings.Repeat("(", maxNesting+1) + strings.Repeat(")", maxNesting+1) + "\n",
	"/show `" + strings.Repeat("@a(", maxNesting/2+1) + "`\n",
	"/run cmd {echo " + strings.Repeat("@a[", maxNesting+1) + "}\n",
	"/var @x = " + strings.Repeat("!-", maxRecursion/2+1) + "1\n",
	"/var @x = " + strings.Repeat("when @a => @b ? ", 8) + "1\n",
	"/var @x = 1" + strings.Repeat(" + 1", 500) + "\n",
}

func FuzzParse(f *testing.F) {
	for _, s := range append(fuzzSeeds, deepSeeds...) {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, src string, strict bool) {
		mode := ast.Markdown
		if strict {
			mode = ast.Strict
		}
		doc, err := Parse("fuzz.md", []byte(src), mode)
		if err != nil {
			var ierr *InternalError
			if errors.As(err, &ierr) {
				t.Fatalf("parser panicked: %v\n%s", ierr.Value, ierr.Stack)
			}
			var perr *Error
			if !errors.As(err, &perr) {
				t.Fatalf("error is not *grammar.Error: %T %v", err, err)
			}
			if perr.Pos.Line < 1 || perr.Pos.Col < 1 {
				t.Fatalf("error without position: %v", perr)
			}
			return
		}
		ast.Inspect(doc, func(ast.Node) bool { return true })
	})
}
