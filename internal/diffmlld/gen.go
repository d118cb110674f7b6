package diffmlld

import (
	"fmt"
	"math/rand"
	"strings"
)

// Generate returns n programs from the seeded generator; the same seed
// gives the same programs. Each program is a few productions (1 to 3), each
// with the definitions it needs, so that a disagreement shrinks to a
// handful of lines.
func Generate(seed int64, n int) []Program {
	out := make([]Program, 0, n)
	for i := 0; i < n; i++ {
		g := &gen{r: rand.New(rand.NewSource(seed*1_000_003 + int64(i))), files: map[string]string{}}
		if g.r.Intn(portEvery) == 0 {
			// A PORT row's program is that production alone, so that its
			// documented difference cannot hide another one.
			p := portProductions[g.r.Intn(len(portProductions))]
			g.tags = append(g.tags, p.tag)
			p.emit(g)
		} else {
			k := 1 + g.r.Intn(3)
			for j := 0; j < k; j++ {
				p := productions[g.r.Intn(len(productions))]
				g.tags = append(g.tags, p.tag)
				p.emit(g)
			}
		}
		out = append(out, Program{
			Name:   fmt.Sprintf("gen-%d-%04d", seed, i),
			Source: strings.Join(g.lines, "\n") + "\n",
			Files:  g.files,
			Tags:   g.tags,
			Port:   g.port,
		})
	}
	return out
}

// gen is the state of one program being generated.
type gen struct {
	r     *rand.Rand
	lines []string
	files map[string]string
	tags  []string
	n     int
	// port is set by a production of a SPEC PORT row.
	port *Port
}

func (g *gen) emit(format string, args ...any) {
	g.lines = append(g.lines, fmt.Sprintf(format, args...))
}

// fresh returns a new variable name with the given prefix.
func (g *gen) fresh(prefix string) string {
	g.n++
	return fmt.Sprintf("%s%d", prefix, g.n)
}

func (g *gen) pick(xs ...string) string { return xs[g.r.Intn(len(xs))] }

var words = []string{"alpha", "Beta", "gamma delta", "", "  padded  ", "x-y_z", "MiXeD", "42", "a,b,c", "line"}

// str defines a string variable and returns its name.
func (g *gen) str() string {
	v := g.fresh("s")
	w := words[g.r.Intn(len(words))]
	switch g.r.Intn(4) {
	case 0:
		g.emit("var @%s = '%s'", v, w)
	default:
		g.emit(`var @%s = "%s"`, v, w)
	}
	return v
}

func (g *gen) num() string {
	v := g.fresh("n")
	g.emit("var @%s = %s", v, g.pick("0", "1", "3", "-2", "2.5", "10"))
	return v
}

// arr defines an array variable.
func (g *gen) arr() string {
	v := g.fresh("a")
	switch g.r.Intn(4) {
	case 0:
		g.emit(`var @%s = [1, 2, 3]`, v)
	case 1:
		g.emit(`var @%s = ["b", "a", "c"]`, v)
	case 2:
		g.emit(`var @%s = []`, v)
	default:
		g.emit(`var @%s = [{"name": "x", "n": 1}, {"name": "y", "n": 2}]`, v)
	}
	return v
}

// obj defines an object variable.
func (g *gen) obj() string {
	v := g.fresh("o")
	switch g.r.Intn(3) {
	case 0:
		g.emit(`var @%s = {"host": "localhost", "port": 3000}`, v)
	case 1:
		g.emit(`var @%s = {a: 1, b: "two", c: [1, 2], d: {e: null}}`, v)
	default:
		g.emit(`var @%s = {}`, v)
	}
	return v
}

// value defines a variable of a random kind.
func (g *gen) value() string {
	switch g.r.Intn(4) {
	case 0:
		return g.str()
	case 1:
		return g.num()
	case 2:
		return g.arr()
	}
	return g.obj()
}

// ref is a reference to some value: a variable, a field, an index.
func (g *gen) ref() string {
	switch g.r.Intn(6) {
	case 0:
		return "@" + g.obj() + "." + g.pick("host", "a", "b", "c", "d.e", "missing", "c[1]")
	case 1:
		return "@" + g.arr() + "[" + g.pick("0", "1", "-1", "5") + "]"
	case 2:
		return "@" + g.arr() + "." + g.pick("length", "0", "name")
	}
	return "@" + g.value()
}

// production is one construct of the language the generator exercises.
type production struct {
	tag  string
	emit func(g *gen)
}

// guardErr expects a runtime error whose text names reason.
func guardErr(reason string) func(Outcome) bool {
	return func(o Outcome) bool {
		return o.Class == Runtime && strings.Contains(o.Stderr+o.Stdout, reason)
	}
}

// okWith expects a clean run whose output contains text.
func okWith(text string) func(Outcome) bool {
	return func(o Outcome) bool { return o.Class == OK && strings.Contains(Normalize(o.Stdout), text) }
}

// isParse expects a parse error.
func isParse(o Outcome) bool { return o.Class == Parse }

// secretVar defines a variable labelled secret (and maybe more labels).
func (g *gen) secretVar() string {
	v := g.fresh("k")
	g.emit(`var %s @%s = "%s"`, g.pick("secret", "secret,pii", "secret, untrusted"), v, g.pick("sk-1", "token", "p@ss"))
	return v
}

var productions = []production{
	{"show-literal", func(g *gen) {
		g.emit("show %s", g.pick(`"plain"`, `'single @x'`, "`tick`", "::colons::", "42", "true", "null", "[1, 2]", `{"k": "v"}`))
	}},
	{"show-value", func(g *gen) { g.emit("show %s", g.ref()) }},
	{"template-interpolation", func(g *gen) {
		a, b := g.ref(), g.ref()
		switch g.r.Intn(4) {
		case 0:
			g.emit("show `[%s] and [%s]`", a, b)
		case 1:
			g.emit("show ::(%s) and %s::", a, b)
		case 2:
			g.emit(`show "%s, %s."`, a, b)
		default:
			g.emit("var @%s = `\n  first %s\n  second %s\n`\nshow @%[1]s", g.fresh("t"), a, b)
		}
	}},
	{"template-escapes", func(g *gen) {
		s := g.str()
		g.emit("show %s", g.pick("`a\\@b @"+s+"`", `"quote \"x\" @`+s+`"`, "`user@example.com @"+s+"`", "`@"+s+"'s`", "`@"+s+".`", "`@@"+s+"`", `"tab\there"`))
	}},
	{"pipe-in-interpolation", func(g *gen) {
		s := g.str()
		g.emit("show `[@%s|@%s]`", s, g.pick("upper", "lower", "trim", "json", "upper|@trim", "pretty"))
	}},
	{"transformer-pipeline", func(g *gen) {
		x := g.value()
		g.emit("var @%s = @%s | @%s", g.fresh("p"), x, g.pick("upper", "lower", "trim", "json", "pretty", "sort", "json | @parse", "trim | @upper"))
		g.emit("show @%s", fmt.Sprintf("p%d", g.n))
	}},
	{"transformer-call", func(g *gen) {
		x := g.value()
		g.emit("show @%s(@%s)", g.pick("upper", "lower", "trim", "json", "pretty", "typeof", "exists"), x)
	}},
	{"conditional-fragment", func(g *gen) {
		a := g.value()
		b := g.fresh("e")
		g.emit(`var @%s = %s`, b, g.pick(`""`, "null", "false", `"set"`, "0", "[]"))
		switch g.r.Intn(5) {
		case 0:
			g.emit("show `x:@%s?`", b)
		case 1:
			g.emit("var @%s = [@%s, @%s?, 3]\nshow @%[1]s", g.fresh("l"), a, b)
		case 2:
			g.emit(`var @%s = {"k": @%s, "opt"?: @%s}`+"\nshow @%[1]s", g.fresh("m"), a, b)
		case 3:
			g.emit("show `hello @%s??\"friend\"`", b)
		default:
			g.emit("var @%s = @%s ?? @%s ?? \"fallback\"\nshow @%[1]s", g.fresh("c"), b, a)
		}
	}},
	{"spread", func(g *gen) {
		if g.r.Intn(2) == 0 {
			a := g.arr()
			g.emit("var @%s = [0, ...@%s, 9]\nshow @%[1]s", g.fresh("sp"), a)
		} else {
			o := g.obj()
			g.emit(`var @%s = { ...@%s, "z": true, host: "over" }`+"\nshow @%[1]s", g.fresh("sp"), o)
		}
	}},
	{"for-array", func(g *gen) {
		a := g.arr()
		switch g.r.Intn(4) {
		case 0:
			g.emit("for @x in @%s => show `item @x`", a)
		case 1:
			g.emit("for @x in @%s => show `@x.mx.index: @x @mx.for.index/@mx.for.total`", a)
		case 2:
			g.emit("var @%s = for @x in @%s => `(@x)`\nshow @%[1]s", g.fresh("r"), a)
		default:
			g.emit("var @%s = for @x in @%s when @x => @x\nshow @%[1]s", g.fresh("r"), a)
		}
	}},
	{"for-object", func(g *gen) {
		o := g.obj()
		switch g.r.Intn(4) {
		case 0:
			g.emit("for @k, @v in @%s => show `@k=@v`", o)
		case 1:
			g.emit("for @v in @%s => show `@v.mx.key: @v`", o)
		case 2:
			g.emit("for @v in @%s => show `@v_key @mx.for.key`", o)
		default:
			g.emit("var @%s = for @k, @v in @%s => `@k`\nshow @%[1]s", g.fresh("r"), o)
		}
	}},
	{"for-block", func(g *gen) {
		a := g.arr()
		g.emit("for @x in @%s [\n  let @y = `(@x)`\n  show @y\n]", a)
	}},
	{"when", func(g *gen) {
		x := g.value()
		switch g.r.Intn(4) {
		case 0:
			g.emit(`when @%s => show "truthy"`, x)
		case 1:
			g.emit("when [\n  @%s == %s => show \"eq\"\n  * => show \"other\"\n]", x, g.pick("1", `"alpha"`, "[]", "null", "3"))
		case 2:
			g.emit("var @%s = when [\n  !@%s => \"falsy\"\n  @%[2]s.length > 1 => \"long\"\n  * => \"short\"\n]\nshow @%[1]s", g.fresh("w"), x)
		default:
			g.emit("when @%s && true => show \"both\"", x)
		}
	}},
	{"if", func(g *gen) {
		x := g.value()
		g.emit("if @%s [\n  show \"yes\"\n] else [\n  show \"no\"\n]", x)
	}},
	{"exe", func(g *gen) {
		f := g.fresh("f")
		s := g.str()
		switch g.r.Intn(5) {
		case 0:
			g.emit("exe @%s(a) = `f(@a)`", f)
		case 1:
			g.emit("exe @%s(a) = [\n  let @b = `(@a)`\n  => @b\n]", f)
		case 2:
			g.emit("exe @%s(a) = js { return String(a).toUpperCase() }", f)
		case 3:
			g.emit("exe @%s(a) = when [\n  @a == \"alpha\" => \"A\"\n  * => `other:@a`\n]", f)
		default:
			g.emit("exe @%s(a) = cmd {echo \"@a\"}", f)
		}
		g.emit("show @%s(@%s)", f, s)
	}},
	{"methods", func(g *gen) {
		if g.r.Intn(2) == 0 {
			s := g.str()
			g.emit("show @%s.%s", s, g.pick("length", "toUpperCase()", "split(\",\")", "includes(\"a\")", "trim()", "slice(1, 3)", "replace(\"a\", \"A\")", "startsWith(\"a\")", "padStart(8, \"*\")", "isString()"))
		} else {
			a := g.arr()
			g.emit("show @%s.%s", a, g.pick("length", "join(\"-\")", "includes(2)", "reverse()", "sort()", "slice(1)", "concat([9])", "at(-1)", "isArray()", "indexOf(\"a\")"))
		}
	}},
	{"while", func(g *gen) {
		f := g.fresh("cd")
		g.emit("exe @%s(n) = when [\n  @n <= 0 => done \"finished\"\n  * => continue (@n - 1)\n]", f)
		g.emit("var @%s = %s | while(%s) @%s\nshow @%[1]s", g.fresh("wr"), g.pick("3", "0", "12"), g.pick("10", "2"), f)
	}},
	{"loop", func(g *gen) {
		switch g.r.Intn(3) {
		case 0:
			g.emit("var @%s = loop(%s) [\n  let @count = (@input ?? 0) + 1\n  when @count >= 3 => done @count\n  continue @count\n]\nshow @%[1]s", g.fresh("lr"), g.pick("10", "2"))
		case 1:
			g.emit("loop until @input >= 2 [\n  let @next = (@input ?? 0) + 1\n  show `@next @mx.loop.iteration`\n  continue @next\n]")
		default:
			g.emit("var @%s = loop(3) [\n  show `it @mx.loop.iteration`\n  continue\n]\nshow @%[1]s", g.fresh("lr"))
		}
	}},
	{"import", func(g *gen) {
		g.files["mod.mld"] = "var @greeting = \"hi\"\nexe @shout(x) = `@x!`\nvar @cfg = {\"level\": 2}\nexport { @greeting, @shout, @cfg }\n"
		switch g.r.Intn(4) {
		case 0:
			g.emit(`import { @greeting, @shout } from "./mod.mld"` + "\nshow @shout(@greeting)")
		case 1:
			g.emit(`import "./mod.mld" as @m` + "\nshow @m.greeting\nshow @m.cfg.level")
		case 2:
			g.emit(`import { @greeting as @g2 } from "./mod.mld"` + "\nshow @g2")
		default:
			g.emit(`import { @missing } from "./mod.mld"`)
		}
	}},
	{"file-load", func(g *gen) {
		g.files["guide.md"] = "# Guide\n\n## Intro\n\nintro text\n\n## Usage\n\nusage text\n\n### Detail\n\ndetail\n"
		g.files["notes/a.md"] = "---\ntitle: A\n---\nalpha note\n"
		g.files["notes/b.md"] = "---\ntitle: B\n---\nbeta note\n"
		g.files["data.json"] = `{"name": "d", "items": [1, 2]}` + "\n"
		switch g.r.Intn(8) {
		case 0:
			g.emit("show <guide.md>")
		case 1:
			g.emit("show <guide.md # %s>", g.pick("Intro", "Usage", "usage", "Missing", `"Intro", Usage`))
		case 2:
			g.emit("var @%s = <notes/*.md>\nshow @%[1]s.length\nfor @d in @%[1]s => show @d.mx.filename", g.fresh("fl"))
		case 3:
			g.emit(`show <notes/*.md> as "- <>.mx.fm.title"`)
		case 4:
			g.emit("var @%s = <data.json>\nshow @%[1]s.name\nshow @%[1]s.items", g.fresh("fl"))
		case 5:
			g.emit("show <data.json>.items[1]")
		case 6:
			g.emit("var @%s = <notes/a.md>\nshow @%[1]s.mx.fm.title\nshow @%[1]s.mx.text", g.fresh("fl"))
		default:
			g.emit("show <nope.md>")
		}
	}},
	{"builtins", func(g *gen) {
		x := g.value()
		g.emit("show %s", g.pick("@typeof(@"+x+")", "@exists(@"+x+")", "@exists(\"guide.md\")", "@"+x+".isDefined()", "@keep({a: 1, b: 2}, [\"a\"])", "@fileExists(\"nope.txt\")"))
	}},
	{"run-cmd", func(g *gen) {
		s := g.str()
		switch g.r.Intn(3) {
		case 0:
			g.emit("run cmd {echo @%s}", s)
		case 1:
			g.emit("var @%s = cmd {printf '%%s' \"@%s\"}\nshow @%[1]s", g.fresh("c"), s)
		default:
			g.emit("run js { console.log(\"js\" + 1) }")
		}
	}},
	{"output-log", func(g *gen) {
		s := g.str()
		switch g.r.Intn(3) {
		case 0:
			g.emit("output @%s to stdout", s)
		case 1:
			g.emit("log @%s", s)
		default:
			g.emit("output @%s to \"out.txt\"\nshow <out.txt>", s)
		}
	}},
	{"guard-operation", func(g *gen) {
		// Operation guards that agree with mlld: a denial caught by a
		// denied handler, an allowed call, a label-driven denial.
		f := g.fresh("emit")
		g.emit("exe @%s(x) = cmd {echo \"@x\"}", f)
		gname := g.fresh("g")
		switch g.r.Intn(3) {
		case 0:
			g.emit("guard @%s before op:exe = when [\n  @input.any.mx.labels.includes(\"secret\") => deny \"secret to exe\"\n  * => allow\n]", gname)
		case 1:
			g.emit("guard @%s before op:exe = when [\n  @mx.op.name == \"%s\" && @input.any.mx.labels.includes(\"secret\") => deny \"no %[2]s\"\n  * => allow\n]", gname, f)
		default:
			g.emit("guard @%s before secret = when [\n  @mx.op.type == \"exe\" => deny \"secret stays\"\n  * => allow\n]", gname)
		}
		safe := g.fresh("safe")
		g.emit("exe @%s(v) = when [\n  denied => `blocked: @mx.guard.reason`\n  * => @%s(@v)\n]", safe, f)
		k := g.secretVar()
		s := g.str()
		g.emit("show @%s(@%s)", safe, s)
		g.emit("show @%s(@%s)", safe, k)
	}},
	{"guard-allow-transform", func(g *gen) {
		// An after guard replacing an exe's result, and a before guard
		// that allows: what the variable then holds.
		f := g.fresh("f")
		g.emit("exe @%s(x) = js { return \"sk-\" + x }", f)
		g.emit("guard @%s after op:exe = when [\n  @output.includes(\"sk-\") => allow @output.replace(\"sk-\", \"[REDACTED]-\")\n  * => allow\n]", g.fresh("red"))
		r := g.fresh("r")
		g.emit("var @%s = @%s(\"%s\")\nshow @%[1]s", r, f, g.pick("a", "12", "x y"))
	}},
	{"labels", func(g *gen) {
		// Labels and taint as `.mx` shows them, through templates,
		// pipelines, arrays and code.
		k := g.secretVar()
		switch g.r.Intn(5) {
		case 0:
			g.emit("var @%s = `pre @%s post`\nshow @%[1]s.mx.labels", g.fresh("t"), k)
		case 1:
			g.emit("var @%s = @%s | @upper\nshow @%[1]s.mx.labels", g.fresh("u"), k)
		case 2:
			g.emit("var @%s = [@%s, \"x\"]\nshow @%[1]s.mx.labels", g.fresh("l"), k)
		case 3:
			f := g.fresh("f")
			g.emit("exe @%s(x) = js { return x + \"!\" }\nvar @%s = @%[1]s(\"a\")\nshow @%[2]s.mx.taint\nshow @%[2]s.mx.labels", f, g.fresh("r"))
		default:
			g.emit("show @%s.mx.labels", k)
		}
	}},
	{"error", func(g *gen) {
		s := g.str()
		g.emit("%s", g.pick(
			"show @undefinedVar",
			"var @"+s+" = \"again\"",
			"show @nofn(1)",
			"var @bad = [1, 2",
			"show `unclosed",
			"frobnicate @x",
			"done",
			"var @q = {\"a\": }",
			"show @"+s+".nope.deeper",
			"for @x in @"+s+" => show @x",
			"var @z = @"+s+" |",
			"exe @g(a) = `@a`\nshow @g(1, 2)",
		))
	}},
}

// portEvery is how rarely a program is one of a SPEC PORT row (1 in
// portEvery): those programs check that guardrun keeps its documented
// differences, and are reported apart from the agreement rates.
const portEvery = 20

// portProductions exercise the SPEC PORT rows of guards and labels, where
// guardrun departs from mlld 2.0.5 on purpose; each sets gen.port.
var portProductions = []production{
	{"port-op-prefix", func(g *gen) {
		// SPEC §8 item 4: `op:cmd:echo` fires on every echo command in
		// guardrun; mlld's filter never fires.
		g.emit("guard @%s before op:cmd:echo = when [\n  * => deny \"no echo here\"\n]", g.fresh("g"))
		w := g.pick("hi", "there")
		g.emit("run cmd {echo %s}", w)
		g.port = &Port{Row: "op:cmd:A prefix filter (§8 item 4)", Ours: guardErr("no echo here"), Ref: okWith(w)}
	}},
	{"port-src-filter", func(g *gen) {
		// SPEC §8 item 12: a `src:` data filter matches taint in
		// guardrun; mlld selects data guards on labels only.
		f := g.fresh("f")
		g.emit("exe @%s() = js { return \"from-js\"; }\nvar @%s = @%[1]s()", f, g.fresh("r"))
		g.emit("guard @%s before src:js = when [ * => deny \"js taint\" ]", g.fresh("g"))
		g.emit("show @r%d", g.n-1)
		g.port = &Port{Row: "src:/dir: data filters (§8 item 12)", Ours: guardErr("js taint"), Ref: okWith("from-js")}
	}},
	{"port-with-no-pipeline", func(g *gen) {
		// SPEC §8 item 6: `show `…` with {…}` without a pipeline key
		// crashes mlld's parser; guardrun treats it as `pipeline: []`.
		s := g.str()
		g.emit("show `t:@%s` with { guards: false }", s)
		g.port = &Port{Row: "with {} without pipeline (§8 item 6)", Ours: okWith("t:"), Ref: isParse}
	}},
	{"port-denying-after-guard", func(g *gen) {
		// SPEC §5.5 / P10: guardrun names the after guard that denied;
		// mlld names the first one it evaluated.
		g.emit("exe @%s() = \"out\"", g.fresh("f"))
		g.emit("guard @first after op:exe = when [ * => allow ]\nguard @second after op:exe = when [ * => deny \"second says no\" ]")
		g.emit("var @%s = @f%d()\nshow @%[1]s", g.fresh("r"), g.n-1)
		g.port = &Port{Row: "the denying after guard is named (P10)",
			Ours: func(o Outcome) bool { return guardErr("@second")(o) },
			Ref:  func(o Outcome) bool { return guardErr("@first")(o) }}
	}},
}
