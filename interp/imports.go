package interp

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/guardrun/guardrun/ast"
	"github.com/guardrun/guardrun/interp/value"
)

// execImport binds a local module's exported names in the importer.
func (in *interp) execImport(e *env, d *ast.ImportDirective) error {
	path := d.Path
	if !filepath.IsAbs(path) {
		dir := e.mod.dir
		if dir == "" {
			dir = in.opts.Dir
		}
		path = filepath.Join(dir, path)
	}
	mod, err := in.loadModule(path, d)
	if err != nil {
		return err
	}
	exports := mod.exported()
	switch {
	case d.Namespace != "":
		o := value.NewObject()
		ns := value.New(o)
		for _, name := range mod.exportNames() {
			v := exports[name]
			o.Set(name, v.Data)
			ns.Security = mergeDesc(ns.Security, v.Security)
		}
		return in.define(e, d.Namespace, ns, d.Pos)
	case d.All:
		for _, name := range mod.exportNames() {
			if err := in.define(e, name, exports[name], d.Pos); err != nil {
				return err
			}
		}
		return nil
	}
	for _, n := range d.Names {
		v, ok := exports[n.Name]
		if !ok {
			return newError(KindImport, n.Pos, "export it from the module with `export { @"+n.Name+" }`",
				"Import '%s' not found in %s", n.Name, d.Path)
		}
		alias := n.Alias
		if alias == "" {
			alias = n.Name
		}
		if err := in.define(e, alias, v, n.Pos); err != nil {
			return err
		}
	}
	return nil
}

// loadModule parses and runs a module once per run; its document output
// is discarded.
func (in *interp) loadModule(path string, d *ast.ImportDirective) (*module, error) {
	if m, ok := in.modules[path]; ok {
		if m == nil {
			return nil, newError(KindImport, d.Pos, "break the import cycle", "Circular import of %s", d.Path)
		}
		return m, nil
	}
	if in.opts.Parse == nil {
		return nil, newError(KindImport, d.Pos, "the embedder must set Options.Parse to allow imports", "imports are not available: no parser configured")
	}
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, newError(KindImport, d.Pos, "check the path; it is relative to the importing file", "File not found: %s", d.Path)
	}
	mode := ast.Markdown
	if strings.HasSuffix(path, ".mld") {
		mode = ast.Strict
	}
	doc, err := in.opts.Parse(path, src, mode)
	if err != nil && mode == ast.Strict {
		// mlld accepts modules with markdown prose (headings) even as .mld.
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

// exported maps the names a module exports to their values: the listed
// names, or everything when it has no export directive or `export { * }`.
func (m *module) exported() map[string]*value.Variable {
	out := map[string]*value.Variable{}
	if !m.hasExport || m.exportAll {
		for k, v := range m.root.vars {
			out[k] = v
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
