package interp

import (
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/guardrun/guardrun/ast"
	"github.com/guardrun/guardrun/interp/value"
)

// execImport binds a local module's exported names in the importer.
func (in *interp) execImport(e *env, d *ast.ImportDirective) error {
	if d.Policy {
		return in.importPolicy(e, d)
	}
	if d.Templates {
		return in.importTemplates(e, d)
	}
	file, isDir := in.openImport(e, d)
	if isDir {
		return in.importDirectory(e, d)
	}
	mod, err := in.loadModule(e, d, file)
	if err != nil {
		return err
	}
	if d.Guards {
		return in.importGuards(e, mod, d.Pos)
	}
	exports := mod.exported()
	if d.Namespace == "" && !d.All && len(d.Names) == 0 {
		return in.importBare(e, d, mod)
	}
	switch {
	case d.Namespace != "":
		o := value.NewObject()
		ns := value.New(o)
		ns.Namespace = d.Path
		for _, name := range mod.exportNames() {
			v := exports[name]
			o.Set(name, v.Data)
			ns.Security = ns.Security.Merge(v.Security)
		}
		return in.defineImported(e, d.Namespace, ns, d.Pos)
	case d.All:
		for _, name := range mod.exportNames() {
			if err := in.defineImported(e, name, exports[name], d.Pos); err != nil {
				return err
			}
		}
		return nil
	}
	for _, n := range d.Names {
		v, ok := exports[n.Name]
		if g := mod.guardNames[n.Name]; g != nil {
			// Importing a guard's name is how an importer asks for it
			// (SPEC §2): it is active from here on.
			if err := in.addGuard(e.mod, g, n.Pos); err != nil {
				return err
			}
			if !ok {
				continue
			}
		}
		if !ok {
			return newError(KindImport, n.Pos, "export it from the module with `export { @"+n.Name+" }`",
				"Import '%s' not found in %s", n.Name, d.Path)
		}
		alias := n.Alias
		if alias == "" {
			alias = n.Name
		}
		if err := in.defineImported(e, alias, v, n.Pos); err != nil {
			return err
		}
	}
	return nil
}

// importGuards runs `import guards from "…"`: every guard of the module,
// in its order, is active in the importer from here on.
func (in *interp) importGuards(e *env, mod *module, pos ast.Pos) error {
	for _, g := range mod.guards {
		if err := in.addGuard(e.mod, g, pos); err != nil {
			return err
		}
	}
	return nil
}

// loadModule parses and runs a module once per run; its document output
// is discarded. file, when not nil, is the module's file, already open
// (openImport); loadModule closes it.
func (in *interp) loadModule(e *env, d *ast.ImportDirective, file *openFile) (*module, error) {
	if file != nil {
		defer file.Close()
	}
	_, path, err := in.files.resolve(e.mod.dir, d.Path, d.Pos)
	if err != nil {
		return nil, err
	}
	if m, ok := in.modules[path]; ok {
		if m == nil {
			return nil, newError(KindImport, d.Pos, "break the import cycle", "Circular import of %s", d.Path)
		}
		return m, nil
	}
	if in.opts.Parse == nil {
		return nil, newError(KindImport, d.Pos, "the embedder must set Options.Parse to allow imports", "imports are not available: no parser configured")
	}
	var src []byte
	if file != nil {
		src, err = in.files.readOpen(file, d.Path, d.Pos)
	} else {
		src, _, err = in.files.read(e.mod.dir, d.Path, d.Pos)
	}
	if err != nil {
		return nil, err
	}
	mode := ast.Markdown
	if strings.HasSuffix(path, ".mld") || strings.HasSuffix(path, ".guard") {
		mode = ast.Strict
	}
	doc, err := in.opts.Parse(path, src, mode)
	if err != nil && mode == ast.Strict && slashStyle(string(src)) {
		// mlld accepts .mld modules written in markdown style (headings and
		// /directives). Only such modules get a second, markdown, parse: in
		// one with bare directives a syntax error would otherwise turn every
		// line, guards included, into discarded prose.
		if md, mdErr := in.opts.Parse(path, src, ast.Markdown); mdErr == nil {
			doc, err = md, nil
		}
	}
	if err != nil {
		return nil, &Error{Kind: KindImport, Pos: d.Pos, Message: "in imported module " + d.Path + ": " + err.Error(), Hint: "fix the module's syntax", Err: err}
	}
	m := newModule(path, filepath.Dir(path))
	in.modules[path] = nil
	in.out.muted++
	err = in.execDocument(in.rootEnv(m), doc)
	in.out.muted--
	if err != nil {
		delete(in.modules, path)
		return nil, err
	}
	in.modules[path] = m
	return m, nil
}

// defineImported binds an imported name and remembers that it was
// imported, so that the importer does not pass it on implicitly.
func (in *interp) defineImported(e *env, name string, v *value.Variable, pos ast.Pos) error {
	if resolverName(name) {
		// As in mlld, whatever binds it: a selected name or its alias, a
		// namespace, a bare import's file name.
		return reservedError(name, pos)
	}
	return in.defineImportedAs(e, name, v, pos)
}

// defineImportedAs is defineImported without the reserved-name check,
// for a directory's entry selected by its own name (importDirectory).
func (in *interp) defineImportedAs(e *env, name string, v *value.Variable, pos ast.Pos) error {
	if err := in.define(e, name, v, pos); err != nil {
		return err
	}
	if e.mod.imported == nil {
		e.mod.imported = map[string]bool{}
	}
	e.mod.imported[name] = true
	return nil
}

// exported maps the names a module exports to their values: the listed
// names, or, when it has no export directive or `export { * }`, everything
// it defined itself. Names it imported and its frontmatter (@fm) are passed
// on only when listed, so `import { * }` never re-exports a module's own
// imports by accident.
func (m *module) exported() map[string]*value.Variable {
	out := map[string]*value.Variable{}
	if !m.hasExport || m.exportAll {
		for k, v := range m.root.vars {
			if !m.imported[k] && k != "fm" {
				out[k] = v
			}
		}
		return out
	}
	for _, n := range m.exports {
		if v, ok := m.root.vars[n]; ok {
			out[n] = v
		}
	}
	return out
}

// exportNames lists exported names in a stable order.
func (m *module) exportNames() []string {
	ex := m.exported()
	var names []string
	if m.hasExport && !m.exportAll {
		for _, n := range m.exports {
			if _, ok := ex[n]; ok {
				names = append(names, n)
			}
		}
		return names
	}
	for k := range ex {
		names = append(names, k)
	}
	sortStrings(names)
	return names
}

// bareDirective matches a line that starts with a directive keyword without
// the markdown slash.
var bareDirective = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(?:var|show|exe|run|when|if|for|output|append|log|import|export|guard|policy|let)\b|^@[A-Za-z_]|^=>`)
})

// slashStyle reports whether every directive-like line of src has the
// markdown slash, so that reading src as markdown loses no directive.
func slashStyle(src string) bool {
	for _, line := range strings.Split(src, "\n") {
		t := strings.TrimSpace(line)
		if t == "" || strings.HasPrefix(t, ">>") || strings.HasPrefix(t, "<<") || strings.HasPrefix(t, "/") {
			continue
		}
		if bareDirective().MatchString(t) {
			return false
		}
	}
	return true
}

// namespaceField checks the first field r reads of ns, a namespace
// import: as in mlld, a name the module does not export is an error where
// the reference is read directly (show, var, arguments); a template
// interpolates it as null, and a condition finds it undefined.
func namespaceField(ns *value.Variable, r *ast.Ref) error {
	o, ok := ns.Data.(*value.Object)
	if !ok || len(r.Path) == 0 || r.Path[0].Kind != ast.AccessField {
		return nil
	}
	name := r.Path[0].Name
	if _, ok := o.Get(name); ok || name == "mx" {
		return nil
	}
	return newError(KindVariable, r.Path[0].Pos, "export it from the module, or use one of its exports",
		"Namespace @%s does not export %q. Available exports: %s. Imported from %s.", r.Name, name, strings.Join(o.Keys, ", "), ns.Namespace)
}
