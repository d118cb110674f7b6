package check

import (
	"sort"
	"strings"

	"github.com/guardrun/guardrun/ast"
	"github.com/guardrun/guardrun/grammar"
)

// Source parses src (the contents of file, read in mode) and checks it.
// A parse error is returned as is.
func Source(file string, src []byte, mode ast.Mode) ([]Finding, error) {
	doc, err := grammar.Parse(file, src, mode)
	if err != nil {
		return nil, err
	}
	if AgentPolicy(file) {
		return AgentDocument(doc, ToolPatterns(file)...), nil
	}
	return Document(doc), nil
}

// Document checks a parsed script. Findings come sorted by position.
func Document(doc *ast.Document) []Finding {
	return document(doc, false, nil)
}

// AgentDocument checks a parsed agent policy: as Document, in the world
// of the agent hosts' tools (see AgentPolicy). tools are the keys of the
// tool collections in scope besides the document's own: those of the
// modules it imports and of the policies it is layered under (the
// user's, for a workspace policy), patterns such as "{Deploy,Ship}".
func AgentDocument(doc *ast.Document, tools ...string) []Finding {
	return document(doc, true, nil, tools...)
}

// Config says what a check knows beyond the document.
type Config struct {
	// Agent checks an agent policy, as AgentDocument does; Tools are the
	// tool patterns in scope outside the document (AgentDocument's tools).
	Agent bool
	Tools []string
	// Names are names the embedder defines for the script, which it uses
	// without declaring them: per-call variables and Go functions.
	Names []string
}

// DocumentWith checks a parsed script as cfg says: Document, or
// AgentDocument for an agent policy, knowing cfg.Names.
func DocumentWith(doc *ast.Document, cfg Config) []Finding {
	return document(doc, cfg.Agent, cfg.Names, cfg.Tools...)
}

func document(doc *ast.Document, agent bool, names []string, tools ...string) []Finding {
	c := newChecker(doc)
	c.agent = agent
	if len(names) > 0 {
		c.embedder = make(map[string]bool, len(names))
		for _, n := range names {
			c.embedder[n] = true
		}
	}
	for _, t := range tools {
		c.scopeTools = append(c.scopeTools, expandBraces(t)...)
	}
	c.declarations()
	c.resolveAll()
	c.guards()
	if agent {
		c.agentArgs()
		c.agentLabels()
	} else {
		c.flow()
	}
	sort.SliceStable(c.findings, func(i, j int) bool {
		a, b := c.findings[i].Pos, c.findings[j].Pos
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Col < b.Col
	})
	return c.findings
}

// HasErrors reports whether any finding is an error.
func HasErrors(fs []Finding) bool {
	for _, f := range fs {
		if f.Severity == Error {
			return true
		}
	}
	return false
}

type checker struct {
	doc *ast.Document
	// agent is set for an agent policy (AgentDocument); scopeTools are
	// the tool patterns of collections in scope outside the document.
	agent      bool
	scopeTools []string
	findings   []Finding
	seen       map[string]bool

	globals map[string]ast.Node
	// embedder are the names the embedder defines (Config.Names).
	embedder map[string]bool
	exes     map[string]*ast.ExeDirective
	objects  map[string]*ast.ObjectLit
	// open is set when an import brings names this check cannot see
	// (`import { * }`): unknown names and labels are then not reported.
	open bool
	// imports is set when the script imports anything: labels, guards and
	// policies may then come from modules.
	imports bool

	labels    map[string]bool // data labels declared anywhere
	exeLabels map[string]bool
	// toolLabels are the labels and returns the document's tool
	// collections declare: a guard filtering on one fires.
	toolLabels map[string]bool
	commands   map[string]bool // first words of cmd blocks
	guardList  []*ast.GuardDirective
	// guardNames are named guards, which `with { guards: … }` overrides
	// name as @name.
	guardNames map[string]bool
	// overrides is set when an operation turns guards off or on by name
	// (`with { guards: … }`): a shadowed guard may then still decide.
	overrides bool
	policies  []*ast.PolicyDirective
}

func newChecker(doc *ast.Document) *checker {
	return &checker{
		doc: doc, seen: map[string]bool{},
		globals: map[string]ast.Node{}, exes: map[string]*ast.ExeDirective{}, objects: map[string]*ast.ObjectLit{},
		labels: map[string]bool{}, exeLabels: map[string]bool{}, toolLabels: map[string]bool{}, commands: map[string]bool{},
		guardNames: map[string]bool{},
	}
}

func (c *checker) report(f Finding) {
	key := f.Pos.String() + "\x00" + f.Message
	if c.seen[key] {
		return
	}
	c.seen[key] = true
	c.findings = append(c.findings, f)
}

// declarations records the top-level names, labels and commands, and
// reports names defined twice.
func (c *checker) declarations() {
	guardNames := map[string]*ast.GuardDirective{}
	declare := func(name string, n ast.Node, what string) {
		if prev, ok := c.globals[name]; ok {
			c.report(Finding{Pos: n.Position(), Severity: Error, Kind: KindDuplicate,
				Message: what + " @" + name + " is already defined at line " + itoa(prev.Position().Line)})
			return
		}
		c.globals[name] = n
	}
	for _, n := range c.doc.Body {
		switch d := n.(type) {
		case *ast.VarDirective:
			declare(d.Name, d, "variable")
			if o, ok := d.Value.(*ast.ObjectLit); ok && !hasSpread(o) {
				c.objects[d.Name] = o
			}
		case *ast.ExeDirective:
			declare(d.Name, d, "exe")
			c.exes[d.Name] = d
			for _, l := range d.Labels {
				c.exeLabels[l] = true
			}
		case *ast.PolicyDirective:
			declare(d.Name, d, "policy")
			c.policies = append(c.policies, d)
		case *ast.ImportDirective:
			c.imports = true
			switch {
			case d.All:
				c.open = true
			case d.Namespace != "":
				declare(d.Namespace, d, "import")
			}
			for _, in := range d.Names {
				name := in.Name
				if in.Alias != "" {
					name = in.Alias
				}
				declare(name, d, "import")
			}
		case *ast.GuardDirective:
			c.guardList = append(c.guardList, d)
			if d.Name == "" {
				continue
			}
			if prev, ok := guardNames[d.Name]; ok {
				c.report(Finding{Pos: d.Pos, Severity: Error, Kind: KindDuplicate,
					Message: "guard @" + d.Name + " is already defined at line " + itoa(prev.Pos.Line)})
				continue
			}
			guardNames[d.Name] = d
			c.guardNames[d.Name] = true
		}
	}
	ast.Inspect(c.doc, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.VarDirective:
			c.addLabels(n.Labels)
			c.addToolLabels(n)
		case *ast.ReturnStmt:
			c.addLabels(n.Labels)
		case *ast.LabelExpr:
			c.addLabels(n.Labels)
		case *ast.AllowExpr:
			if n.With != nil {
				for _, e := range n.With.Entries {
					if e.Key == "addLabels" {
						for _, s := range stringsIn(e.Value) {
							c.labels[s] = true
						}
					}
				}
			}
		case *ast.PipelineExpr:
			if n.With != nil && n.With.Options != nil && entry(n.With.Options, "guards") != nil {
				c.overrides = true
			}
		case *ast.CodeExpr:
			if n.Lang == "cmd" || n.Lang == "sh" || n.Lang == "bash" {
				if w := strings.Fields(n.Code); len(w) > 0 {
					c.commands[strings.ToLower(w[0])] = true
				}
			}
		}
		return true
	})
}

// addToolLabels records the labels and returns of a tool collection's
// entries (`var tools @t = { "send": { labels: ["pay"], returns: […] } }`).
func (c *checker) addToolLabels(v *ast.VarDirective) {
	o, ok := v.Value.(*ast.ObjectLit)
	if !v.Tools || !ok {
		return
	}
	for _, e := range o.Entries {
		def, ok := e.Value.(*ast.ObjectLit)
		if !ok {
			continue
		}
		for _, k := range []string{"labels", "returns"} {
			if x := entry(def, k); x != nil {
				for _, s := range stringsIn(x) {
					c.toolLabels[s] = true
				}
			}
		}
	}
}

func (c *checker) addLabels(ls []string) {
	for _, l := range ls {
		l = strings.TrimSuffix(strings.TrimPrefix(l, "!"), "!")
		if l != "" && l != "clear" {
			c.labels[l] = true
		}
	}
}

func hasSpread(o *ast.ObjectLit) bool {
	for _, e := range o.Entries {
		if e.Spread {
			return true
		}
	}
	return false
}

// stringsIn returns the plain string literals in x (an array of them, or
// one).
func stringsIn(x ast.Node) []string {
	var out []string
	ast.Inspect(x, func(n ast.Node) bool {
		if s, ok := n.(*ast.StringLit); ok {
			if t, ok := s.PlainText(); ok {
				out = append(out, t)
			}
			return false
		}
		return true
	})
	return out
}

func itoa(n int) string {
	var b [20]byte
	i := len(b)
	if n == 0 {
		return "0"
	}
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	return string(b[i:])
}
