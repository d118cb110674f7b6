package main

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"path/filepath"
	"reflect"
	"sort"
	"strings"

	gast "github.com/guardrun/guardrun/ast"
)

var astPkg = reflect.TypeOf(gast.Pos{}).PkgPath()

// gen collects what the walk from ast.Document reaches.
type gen struct {
	index   map[reflect.Type]int // position in types: interface tags
	seen    map[reflect.Type]bool
	structs []reflect.Type // encoded in place (fields, elements, behind pointers)
	nodes   []reflect.Type // structs reached through a pointer: one slab each
	ptrs    []reflect.Type // pointer types used as such (fields, elements, the root)
	slices  []reflect.Type // one slab each
	ifaces  []reflect.Type
	impls   map[reflect.Type][]reflect.Type
}

// generate returns the source of codec_gen.go for the ast package whose
// source is in astDir.
func generate(astDir string) ([]byte, error) {
	g := &gen{index: map[reflect.Type]int{}, seen: map[reflect.Type]bool{}, impls: map[reflect.Type][]reflect.Type{}}
	for i, v := range types {
		t := reflect.TypeOf(v)
		if _, dup := g.index[t]; dup {
			return nil, fmt.Errorf("ast.%s is listed twice", t.Name())
		}
		g.index[t] = i
	}
	if err := g.complete(astDir); err != nil {
		return nil, err
	}
	if err := g.walk(reflect.TypeOf(&gast.Document{}), "root"); err != nil {
		return nil, err
	}
	for _, l := range [][]reflect.Type{g.structs, g.nodes, g.ptrs, g.slices, g.ifaces} {
		sort.Slice(l, func(i, j int) bool { return g.name(l[i]) < g.name(l[j]) })
	}
	var b bytes.Buffer
	g.write(&b)
	src, err := format.Source(b.Bytes())
	if err != nil {
		return nil, fmt.Errorf("generated code does not parse: %v\n%s", err, b.Bytes())
	}
	return src, nil
}

// complete checks that types lists every exported struct type declared
// in astDir: a node type missing there would be a tree the codec cannot
// encode.
func (g *gen) complete(astDir string) error {
	listed := map[string]bool{}
	for t := range g.index {
		if t.PkgPath() != astPkg || t.Kind() != reflect.Struct {
			return fmt.Errorf("%v in types is not a struct type of package ast", t)
		}
		listed[t.Name()] = true
	}
	files, err := filepath.Glob(filepath.Join(astDir, "*.go"))
	if err != nil || len(files) == 0 {
		return fmt.Errorf("no Go files in %s", astDir)
	}
	var missing []string
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.TYPE {
				continue
			}
			for _, s := range gd.Specs {
				ts := s.(*ast.TypeSpec)
				if _, ok := ts.Type.(*ast.StructType); ok && ts.Name.IsExported() && !listed[ts.Name.Name] {
					missing = append(missing, "ast."+ts.Name.Name)
				}
			}
		}
	}
	if len(missing) > 0 {
		sort.Strings(missing)
		return fmt.Errorf("add %s to types in internal/astgen/types.go", strings.Join(missing, ", "))
	}
	return nil
}

func (g *gen) walk(t reflect.Type, where string) error {
	if g.seen[t] {
		return nil
	}
	g.seen[t] = true
	switch t.Kind() {
	case reflect.String, reflect.Bool, reflect.Int, reflect.Float64:
		if t.PkgPath() != "" && t.PkgPath() != astPkg {
			return fmt.Errorf("%s: type %v is from another package", where, t)
		}
		return nil
	case reflect.Struct:
		if _, ok := g.index[t]; !ok {
			return fmt.Errorf("%s: %v is not a listed ast type", where, t)
		}
		g.structs = append(g.structs, t)
		if g.minSize(t) == 0 {
			return fmt.Errorf("ast.%s has no fields: its slab would be unbounded", t.Name())
		}
		for i := range t.NumField() {
			f := t.Field(i)
			at := t.Name() + "." + f.Name
			if !f.IsExported() {
				return fmt.Errorf("%s is unexported: the codec cannot set it", at)
			}
			if _, ok := special[at]; ok {
				continue
			}
			if err := g.walk(f.Type, at); err != nil {
				return err
			}
		}
		return nil
	case reflect.Pointer:
		if t.Elem().Kind() != reflect.Struct {
			return fmt.Errorf("%s: pointer %v is not to a struct", where, t)
		}
		g.ptrs = append(g.ptrs, t)
		return g.node(t.Elem(), where)
	case reflect.Slice:
		g.slices = append(g.slices, t)
		return g.walk(t.Elem(), where)
	case reflect.Interface:
		if t.PkgPath() != astPkg || t.NumMethod() == 0 {
			return fmt.Errorf("%s: interface %v is not one of package ast's", where, t)
		}
		g.ifaces = append(g.ifaces, t)
		for _, v := range types {
			s := reflect.TypeOf(v)
			if s.Implements(t) {
				return fmt.Errorf("ast.%s implements %v by value: only pointers are encoded", s.Name(), t)
			}
			if reflect.PointerTo(s).Implements(t) {
				g.impls[t] = append(g.impls[t], s)
			}
		}
		if len(g.impls[t]) == 0 {
			return fmt.Errorf("%s: no listed type implements %v", where, t)
		}
		for _, s := range g.impls[t] {
			if err := g.node(s, where); err != nil {
				return err
			}
		}
		return nil
	}
	return fmt.Errorf("%s: the codec cannot encode %v (%v)", where, t, t.Kind())
}

// node notes that struct s is reached through a pointer.
func (g *gen) node(s reflect.Type, where string) error {
	if !contains(g.nodes, s) {
		g.nodes = append(g.nodes, s)
	}
	return g.walk(s, where)
}

func contains(l []reflect.Type, t reflect.Type) bool {
	for _, x := range l {
		if x == t {
			return true
		}
	}
	return false
}

// minSize is the fewest bytes an encoding of t takes: Decode checks the
// slab counts against it, which bounds what hostile counts can allocate.
func (g *gen) minSize(t reflect.Type) uint64 {
	switch t.Kind() {
	case reflect.Float64:
		return 8
	case reflect.Struct:
		var n uint64
		for i := range t.NumField() {
			if _, ok := special[t.Name()+"."+t.Field(i).Name]; ok {
				n++
				continue
			}
			n += g.minSize(t.Field(i).Type)
		}
		return n
	}
	return 1
}

// name is t's part of the generated identifiers.
func (g *gen) name(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Pointer:
		return "Ptr" + g.name(t.Elem())
	case reflect.Slice:
		return "Slice" + g.name(t.Elem())
	}
	if t.Name() != "" {
		return strings.ToUpper(t.Name()[:1]) + t.Name()[1:]
	}
	return t.String()
}

// goType is t as the generated source spells it.
func (g *gen) goType(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Pointer:
		return "*" + g.goType(t.Elem())
	case reflect.Slice:
		return "[]" + g.goType(t.Elem())
	}
	if t.PkgPath() == astPkg {
		return "ast." + t.Name()
	}
	return t.String()
}

// enc is the statement encoding expression x of type t.
func (g *gen) enc(t reflect.Type, x string) string {
	switch t.Kind() {
	case reflect.String:
		return "e.str(" + g.conv(t, "string", x) + ")"
	case reflect.Bool:
		return "e.bool(" + g.conv(t, "bool", x) + ")"
	case reflect.Int:
		return "e.int(" + g.conv(t, "int", x) + ")"
	case reflect.Float64:
		return "e.float(" + g.conv(t, "float64", x) + ")"
	case reflect.Struct:
		return "enc" + g.name(t) + "(e, &" + x + ")"
	}
	return "enc" + g.name(t) + "(e, " + x + ")"
}

// dec is the statement decoding into x of type t.
func (g *gen) dec(t reflect.Type, x string) string {
	switch t.Kind() {
	case reflect.String:
		return x + " = " + g.unconv(t, "d.str()")
	case reflect.Bool:
		return x + " = " + g.unconv(t, "d.bool()")
	case reflect.Int:
		return x + " = " + g.unconv(t, "d.int()")
	case reflect.Float64:
		return x + " = " + g.unconv(t, "d.float()")
	case reflect.Struct:
		return "dec" + g.name(t) + "(d, &" + x + ")"
	}
	return x + " = dec" + g.name(t) + "(d)"
}

func (g *gen) conv(t reflect.Type, basic, x string) string {
	if t.Name() == basic && t.PkgPath() == "" {
		return x
	}
	return basic + "(" + x + ")"
}

func (g *gen) unconv(t reflect.Type, x string) string {
	if t.PkgPath() == "" {
		return x
	}
	return g.goType(t) + "(" + x + ")"
}

// tag is the interface tag of a non-nil *s; tag-1 is a nil *s, 0 a nil
// interface.
func (g *gen) tag(s reflect.Type) int { return 2 * (g.index[s] + 1) }

func (g *gen) write(b *bytes.Buffer) {
	p := func(format string, args ...any) { fmt.Fprintf(b, format+"\n", args...) }
	p("// Code generated by internal/astgen from package ast; DO NOT EDIT.")
	p("\npackage astcodec\n")
	p(`import "github.com/guardrun/guardrun/ast"`)

	p("\n// Slabs: every node and slice element of a decoded tree comes from one")
	p("// allocation per type, sized by the counts in the encoding's header.")
	p("const (")
	for i, t := range g.slabs() {
		if i == 0 {
			p("slab%s = iota", g.name(t))
		} else {
			p("slab%s", g.name(t))
		}
	}
	p("nSlabs\n)")
	p("\n// slabMin is the fewest bytes one element of each slab is encoded in.")
	p("var slabMin = [nSlabs]uint64{")
	for _, t := range g.slabs() {
		min := g.minSize(t.Elem())
		p("slab%s: %d,", g.name(t), min)
	}
	p("}")
	p("\ntype slabs struct {")
	for _, t := range g.slabs() {
		p("%s %s", g.name(t), "[]"+g.goType(t.Elem()))
	}
	p("}")
	p("\n// make allocates the slabs a tree uses; the others are empty, not nil,")
	p("// so that an empty slice decodes as empty, not nil.")
	p("func (s *slabs) make(c *[nSlabs]uint64) {")
	for _, t := range g.slabs() {
		p("if n := c[slab%s]; n > 0 {\ns.%[1]s = make([]%s, n)\n} else {\ns.%[1]s = []%[2]s{}\n}", g.name(t), g.goType(t.Elem()))
	}
	p("}")
	p("\n// used reports whether every counted element was decoded.")
	p("func (s *slabs) used() bool {")
	var conds []string
	for _, t := range g.slabs() {
		conds = append(conds, "len(s."+g.name(t)+") == 0")
	}
	p("return %s", strings.Join(conds, " &&\n"))
	p("}")

	for _, t := range g.structs {
		p("\nfunc enc%s(e *encoder, v *%s) {", g.name(t), g.goType(t))
		for i := range t.NumField() {
			f := t.Field(i)
			if s, ok := special[t.Name()+"."+f.Name]; ok {
				p("enc%s(e, v)", s)
				continue
			}
			p("%s", g.enc(f.Type, "v."+f.Name))
		}
		p("}")
		p("\nfunc dec%s(d *decoder, v *%s) {", g.name(t), g.goType(t))
		for i := range t.NumField() {
			f := t.Field(i)
			if s, ok := special[t.Name()+"."+f.Name]; ok {
				p("dec%s(d, v)", s)
				continue
			}
			p("%s", g.dec(f.Type, "v."+f.Name))
		}
		p("}")
	}
	for _, t := range g.nodes {
		n, pt := g.name(reflect.PointerTo(t)), g.goType(reflect.PointerTo(t))
		p("\nfunc encNode%s(e *encoder, v %s) {", g.name(t), pt)
		p("e.count[slab%s]++", n)
		p("if !e.enter() {\nreturn\n}")
		p("enc%s(e, v)\ne.leave()\n}", g.name(t))
		p("\nfunc decNode%s(d *decoder) %s {", g.name(t), pt)
		p("if len(d.s.%s) == 0 || !d.enter() {\nd.fail()\nreturn nil\n}", n)
		p("v := &d.s.%s[0]\nd.s.%[1]s = d.s.%[1]s[1:]", n)
		p("dec%s(d, v)\nd.leave()\nreturn v\n}", g.name(t))
	}
	for _, t := range g.ptrs {
		n, s := g.name(t), g.name(t.Elem())
		p("\nfunc enc%s(e *encoder, v %s) {", n, g.goType(t))
		p("if v == nil {\ne.uint(0)\nreturn\n}\ne.uint(1)\nencNode%s(e, v)\n}", s)
		p("\nfunc dec%s(d *decoder) %s {", n, g.goType(t))
		p("switch d.uint() {\ncase 0:\nreturn nil\ncase 1:\nreturn decNode%s(d)\n}\nd.fail()\nreturn nil\n}", s)
	}
	for _, t := range g.slices {
		n := g.name(t)
		p("\nfunc enc%s(e *encoder, v %s) {", n, g.goType(t))
		p("if v == nil {\ne.uint(0)\nreturn\n}")
		p("e.uint(uint64(len(v)) + 1)\ne.count[slab%s] += uint64(len(v))", n)
		p("for i := range v {\n%s\n}\n}", g.enc(t.Elem(), "v[i]"))
		p("\nfunc dec%s(d *decoder) %s {", n, g.goType(t))
		p("n := d.uint()\nif n == 0 {\nreturn nil\n}\nn--")
		p("if n > uint64(len(d.s.%s)) {\nd.fail()\nreturn nil\n}", n)
		p("v := d.s.%s[:n:n]\nd.s.%[1]s = d.s.%[1]s[n:]", n)
		p("for i := range v {\n%s\n}\nreturn v\n}", g.dec(t.Elem(), "v[i]"))
	}
	for _, t := range g.ifaces {
		n := g.name(t)
		p("\nfunc enc%s(e *encoder, v %s) {", n, g.goType(t))
		p("switch x := v.(type) {\ncase nil:\ne.uint(0)")
		for _, s := range g.impls[t] {
			p("case %s:", g.goType(reflect.PointerTo(s)))
			p("if x == nil {\ne.uint(%d)\nreturn\n}\ne.uint(%d)\nencNode%s(e, x)", g.tag(s)-1, g.tag(s), g.name(s))
		}
		p("default:\ne.unknown(v)\n}\n}")
		p("\nfunc dec%s(d *decoder) %s {", n, g.goType(t))
		p("switch d.uint() {\ncase 0:\nreturn nil")
		for _, s := range g.impls[t] {
			p("case %d:\nreturn (%s)(nil)", g.tag(s)-1, g.goType(reflect.PointerTo(s)))
			p("case %d:\nreturn decNode%s(d)", g.tag(s), g.name(s))
		}
		p("}\nd.fail()\nreturn nil\n}")
	}
}

// slabs are the slab types in order: pointers to each node struct, then
// the slices.
func (g *gen) slabs() []reflect.Type {
	var out []reflect.Type
	for _, t := range g.nodes {
		out = append(out, reflect.PointerTo(t))
	}
	return append(out, g.slices...)
}
