package check

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/guardrun/guardrun/ast"
	"github.com/guardrun/guardrun/grammar"
	"github.com/guardrun/guardrun/toolschema"
)

// AgentPolicy reports whether file is an agent policy (`.guard`), which
// check reads in the agent's world: the hosts' tools and their input
// fields, the labels tools carry, the agent events' operations.
func AgentPolicy(file string) bool { return filepath.Ext(file) == ".guard" }

// agentOps are the operation keys of the agent events that are not
// tool calls (a tool call is an exe operation).
var agentOps = &lazySet{names: []string{"stop", "prompt", "session", "model", "compress", "notification"}}

// knownCommands are commands an agent policy commonly guards: an
// `op:cmd:<word>` filter one or two edits away from one is a typo.
var knownCommands = &lazySet{names: []string{"git", "npm", "npx", "yarn", "pnpm", "node", "python", "python3", "pip",
	"pip3", "curl", "wget", "rm", "mv", "cp", "chmod", "chown", "sudo", "docker", "kubectl", "make", "go", "cargo",
	"ssh", "scp", "rsync", "bash", "sh", "zsh", "terraform", "gh", "aws", "gcloud", "az", "psql", "mysql", "cat",
	"find", "sed", "awk", "tar", "dd", "mkfs", "kill", "eval", "env", "printenv", "nc", "netcat", "base64", "xargs",
	"tee", "less", "head", "tail", "grep", "rg", "ls", "echo", "brew", "apt", "apt-get", "helm", "guardrun"}}

// collectionKeys are the tool-name patterns of the tool collections in
// scope: the document's (`var tools @agent = { "{Bash,Shell}": … }`) and
// the ones AgentDocument was given.
func (c *checker) collectionKeys() []string {
	out := append([]string(nil), c.scopeTools...)
	for _, n := range c.doc.Body {
		v, ok := n.(*ast.VarDirective)
		if !ok || !v.Tools {
			continue
		}
		o, ok := v.Value.(*ast.ObjectLit)
		if !ok {
			continue
		}
		for _, e := range o.Entries {
			out = append(out, expandBraces(e.Key)...)
		}
	}
	return out
}

// ToolPatterns are the tool collection keys an agent policy file declares
// and those of the local modules it imports, read without running
// anything: the tools in scope of the policy, and of a workspace policy
// layered under it (pass them to AgentDocument). Files that cannot be
// read or parsed add nothing.
func ToolPatterns(file string) []string {
	return toolPatterns(file, map[string]bool{})
}

func toolPatterns(file string, seen map[string]bool) []string {
	file = filepath.Clean(file)
	if seen[file] || len(seen) > 64 {
		return nil
	}
	seen[file] = true
	src, err := os.ReadFile(file)
	if err != nil {
		return nil
	}
	mode := ast.Markdown
	if ext := filepath.Ext(file); ext == ".guard" || ext == ".mld" {
		mode = ast.Strict
	}
	doc, err := grammar.Parse(file, src, mode)
	if err != nil {
		return nil
	}
	out := (&checker{doc: doc}).collectionKeys()
	for _, n := range doc.Body {
		im, ok := n.(*ast.ImportDirective)
		if !ok || im.Path == "" || strings.HasPrefix(im.Path, "@") || strings.Contains(im.Path, "://") {
			continue
		}
		p := im.Path
		if !filepath.IsAbs(p) {
			p = filepath.Join(filepath.Dir(file), p)
		}
		out = append(out, toolPatterns(p, seen)...)
	}
	return out
}

// expandBraces expands one level of `{a,b}` alternatives in a pattern.
func expandBraces(p string) []string {
	i := strings.IndexByte(p, '{')
	j := strings.IndexByte(p, '}')
	if i < 0 || j < i {
		return []string{p}
	}
	var out []string
	for _, alt := range strings.Split(p[i+1:j], ",") {
		out = append(out, expandBraces(p[:i]+alt+p[j+1:])...)
	}
	return out
}

// agentTool reports whether a guard's `@name` filter names a tool: one
// of the hosts' (toolschema) or one a collection in the document names.
func (c *checker) agentTool(name string) bool {
	if _, ok := toolschema.Lookup(name); ok {
		return true
	}
	for _, k := range c.collectionKeys() {
		if ok, _ := doublestar.Match(k, name); ok {
			return true
		}
	}
	return false
}

// toolCandidates are the tool names a misspelt one is compared with.
func (c *checker) toolCandidates() []string {
	out := toolschema.Names()
	for _, k := range c.collectionKeys() {
		if !strings.ContainsAny(k, "*?[") {
			out = append(out, k)
		}
	}
	return out
}

// agentFilter reports an agent policy's guard filter that names no tool,
// no operation or command an agent runs, or no label anything gives.
// It returns false when the filter is left to the script checks.
func (c *checker) agentFilter(g *ast.GuardDirective, never func(string)) bool {
	t := g.Trigger
	switch {
	case strings.HasPrefix(t, "@"):
		name := t[1:]
		if c.exes[name] != nil || c.globals[name] != nil || c.open || c.agentTool(name) {
			return true
		}
		msg := "no tool of Claude Code, Gemini CLI, Codex or Cursor (nor of a tool collection here: declare a tool of your own there) is named " + t
		s := closest(name, c.toolCandidates())
		if s != "" {
			msg += "; did you mean @" + s + "?"
		}
		// A name near no known tool may be a generic host's own tool.
		c.report(Finding{Pos: g.Pos, Severity: Error, Kind: KindNeverMatches, Message: guardLabel(g) + " never fires: " + msg, FailsOpen: s != ""})
		return true
	case strings.HasPrefix(t, "op:"):
		v := strings.ToLower(t[3:])
		head, rest, hier := strings.Cut(v, ":")
		if agentOps.has(head) && !hier {
			return true
		}
		if !opKeys.has(head) && !agentOps.has(head) && !c.exeLabels[v] && !c.labels[v] && !c.toolLabels[v] {
			msg := "no operation has the key \"" + v + "\" (an agent's are op:cmd, op:cmd:<command>, op:exe (a tool call), op:stop, op:prompt, op:session, …)"
			s := closest(head, append(keysOf(opKeys.all()), keysOf(agentOps.all())...))
			if s != "" {
				msg += "; did you mean op:" + s + "?"
			}
			c.report(Finding{Pos: g.Pos, Severity: Error, Kind: KindNeverMatches, Message: guardLabel(g) + " never fires: " + msg, FailsOpen: s != ""})
			return true
		}
		if hier && (head == "cmd" || head == "sh") {
			word, _, _ := strings.Cut(rest, ":")
			if !knownCommands.has(word) {
				if s := closest(word, keysOf(knownCommands.all())); s != "" && len(word) > 1 {
					// Many real commands are an edit from a common one (rake,
					// tree, pkill): only a slip of the keys (gti, gitt) is
					// surely a typo.
					sev := Warning
					if slip(word, s) {
						sev = Error
					}
					c.report(Finding{Pos: g.Pos, Severity: sev, Kind: KindNeverMatches,
						Message: guardLabel(g) + " filters on the command \"" + word + "\"; did you mean op:" + head + ":" + s + "?", FailsOpen: sev == Error})
				}
			}
		}
		return true
	default:
		if c.labels[t] || c.exeLabels[t] || c.toolLabels[t] || builtinLabel(t) || dataLabels.has(t) || agentLabel(t) {
			return true
		}
		if s := closest(t, append(keysOf(dataLabels.all()), toolschema.Labels()...)); s != "" {
			c.report(Finding{Pos: g.Pos, Severity: Error, Kind: KindNeverMatches,
				Message: guardLabel(g) + " never fires: no tool or rule gives the label \"" + t + "\"; did you mean " + s + "?", FailsOpen: slip(t, s)})
			return true
		}
		if c.imports {
			return true
		}
		never("no tool, value or rule carries the label \"" + t + "\"")
		return true
	}
}

// agentLabel reports whether the tools give label l.
func agentLabel(l string) bool {
	for _, x := range toolschema.Labels() {
		if x == l {
			return true
		}
	}
	return strings.HasPrefix(l, "op:")
}

// agentArgs checks the fields guards read from @mx.args against the
// input fields of the tools their filter covers.
func (c *checker) agentArgs() {
	for _, g := range c.guardList {
		fields, what := c.argFields(g)
		if fields == nil {
			continue
		}
		ast.Inspect(g.Body, func(n ast.Node) bool {
			r, ok := n.(*ast.Ref)
			if !ok || r.Name != "mx" || len(r.Path) < 2 || r.Path[0].Kind != ast.AccessField || r.Path[0].Name != "args" {
				return true
			}
			a := r.Path[1]
			if a.Kind != ast.AccessField || len(r.Path) > 2 && r.Path[2].Kind == ast.AccessCall && fields[a.Name] == false && isArgsMethod(a.Name) {
				return true
			}
			if !fields[a.Name] {
				optional := a.Optional || len(r.Path) > 2 && r.Path[2].Optional
				msg := "@mx.args of " + what + " has no field \"" + a.Name + "\""
				if optional {
					msg += " (behind ?. the test is silently false)"
				}
				s := closest(a.Name, keysOf(fields))
				if alias := fieldAliases[strings.ToLower(a.Name)]; s == "" && fields[alias] {
					s = alias
				}
				if s != "" {
					msg += "; did you mean ." + s + "?"
				}
				at := a.Pos
				if at.Line == 0 {
					at = r.Pos
				}
				// Behind ?. or compared as is, a missing field is silently
				// false; a method called on it fails (closed) at run time.
				silent := (optional || len(r.Path) == 2) && s != ""
				c.report(Finding{Pos: at, Severity: Error, Kind: KindUnknownField, Message: msg, FailsOpen: silent})
			}
			return true
		})
	}
}

// isArgsMethod reports the object methods @mx.args itself has.
func isArgsMethod(name string) bool {
	switch name {
	case "keys", "values", "entries", "includes", "isDefined", "mx":
		return true
	}
	return false
}

// argFields are the input fields of the tools a guard's filter covers,
// and how to name them; nil when they are not known (an open tool, a
// filter any tool may meet).
func (c *checker) argFields(g *ast.GuardDirective) (map[string]bool, string) {
	var tools []toolschema.Tool
	what := ""
	t := g.Trigger
	switch {
	case strings.HasPrefix(t, "@"):
		tool, ok := toolschema.Lookup(t[1:])
		if !ok || tool.Open {
			return nil, ""
		}
		tools, what = []toolschema.Tool{tool}, t
	case strings.HasPrefix(strings.ToLower(t), "op:cmd"):
		tools, what = toolschema.Labelled("cmd"), "a command tool"
	case t == "fs:r" || t == "fs:w" || t == "net:r" || t == "net:w":
		tools, what = toolschema.Labelled(t), "a "+t+" tool"
	default:
		return nil, ""
	}
	fields := map[string]bool{}
	for _, tool := range tools {
		if tool.Open {
			return nil, ""
		}
		for _, f := range tool.Fields {
			fields[f] = true
		}
	}
	return fields, what
}

// agentLabels reports labels a rule adds (`addLabels: ["secert"]`) that
// nothing else uses and that are a typo of a known label.
func (c *checker) agentLabels() {
	known := append(keysOf(dataLabels.all()), toolschema.Labels()...)
	used := map[string]bool{}
	for _, g := range c.guardList {
		used[g.Trigger] = true
	}
	ast.Inspect(c.doc, func(n ast.Node) bool {
		a, ok := n.(*ast.AllowExpr)
		if !ok || a.With == nil {
			return true
		}
		for _, e := range a.With.Entries {
			if e.Key != "addLabels" && e.Key != "removeLabels" {
				continue
			}
			ast.Inspect(e.Value, func(m ast.Node) bool {
				s, ok := m.(*ast.StringLit)
				if !ok {
					return true
				}
				l, ok := s.PlainText()
				if !ok || dataLabels.has(l) || agentLabel(l) || builtinLabel(l) || used[l] || c.toolLabels[l] {
					return false
				}
				if near := closest(l, known); near != "" {
					c.report(Finding{Pos: s.Pos, Severity: Error, Kind: KindUnknownName,
						Message: "label \"" + l + "\" is one no rule or guard uses; did you mean \"" + near + "\"?", FailsOpen: slip(l, near)})
				}
				return false
			})
		}
		return true
	})
}

// fieldAliases are names authors give the hosts' input fields.
var fieldAliases = map[string]string{
	"cmd": "command", "commandline": "command", "script": "command",
	"path": "file_path", "file": "file_path", "filename": "file_path", "filepath": "file_path", "target": "file_path",
	"text": "content", "body": "content", "data": "content",
	"old": "old_string", "new": "new_string", "link": "url", "href": "url",
}

// slip reports whether got is want mistyped by a slip of the keys: the
// case of a letter, two neighbours swapped, a letter doubled, or one
// dropped from a name of five letters or more. A name that is some other
// edit away may be a name of its own (rake, not make).
func slip(got, want string) bool {
	switch {
	case strings.EqualFold(got, want):
		return true
	case len(got) == len(want):
		for i := 0; i+1 < len(got); i++ {
			if got[i] != want[i] {
				return got[i] == want[i+1] && got[i+1] == want[i] && got[i+2:] == want[i+2:]
			}
		}
	case len(got) == len(want)+1:
		for i := 0; i < len(got); i++ {
			if got[:i]+got[i+1:] == want {
				return i > 0 && got[i] == got[i-1] || i+1 < len(got) && got[i] == got[i+1]
			}
		}
	case len(got)+1 == len(want) && len(want) >= 5:
		for i := 0; i < len(want); i++ {
			if want[:i]+want[i+1:] == got {
				return true
			}
		}
	}
	return false
}
