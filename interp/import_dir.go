package interp

import (
	"path"
	"sort"

	"github.com/guardrun/guardrun/ast"
	"github.com/guardrun/guardrun/interp/value"
)

// importDirectory imports a directory (mlld's directory imports): every
// subdirectory holding an index.mld is imported as a module, and the
// directory's value is an object with one entry per subdirectory, its
// exports plus `__meta__`, the module's frontmatter. ok is false when the
// path is not a directory.
func (in *interp) importDirectory(e *env, d *ast.ImportDirective) (bool, error) {
	rel, _, err := in.files.resolve(e.mod.dir, d.Path, d.Pos)
	if err != nil {
		return false, nil // loadModule reports it
	}
	root, err := in.files.open()
	if err != nil {
		return false, nil
	}
	st, err := root.Stat(rel)
	if err != nil || !st.IsDir() {
		return false, nil
	}
	o := value.NewObject()
	res := value.New(o)
	ents := readDir(root, rel)
	sort.Slice(ents, func(i, j int) bool { return ents[i].Name() < ents[j].Name() })
	for _, ent := range ents {
		if !ent.IsDir() {
			continue
		}
		index := path.Join(rel, ent.Name(), "index.mld")
		if st, err := root.Lstat(index); err != nil || !st.Mode().IsRegular() {
			continue
		}
		sub := &ast.ImportDirective{Pos: d.Pos, Path: path.Join(d.Path, ent.Name(), "index.mld")}
		mod, err := in.loadModule(e, sub)
		if err != nil {
			return true, err
		}
		exports := mod.exported()
		entry := value.NewObject()
		for _, name := range mod.exportNames() {
			v := exports[name]
			entry.Set(name, v.Data)
			res.Security = res.Security.Merge(v.Security)
		}
		if fm, ok := mod.root.vars["fm"]; ok {
			entry.Set("__meta__", fm.Data)
		} else {
			entry.Set("__meta__", value.NewObject())
		}
		o.Set(ent.Name(), entry)
	}
	switch {
	case d.Namespace != "":
		return true, in.defineImported(e, d.Namespace, res, d.Pos)
	case len(d.Names) > 0:
		for _, n := range d.Names {
			v, ok := o.Get(n.Name)
			if !ok {
				return true, newError(KindImport, n.Pos, "name a subdirectory that holds an index.mld",
					"Import '%s' not found in %s", n.Name, d.Path)
			}
			alias := n.Alias
			if alias == "" {
				alias = n.Name
			}
			if err := in.defineImported(e, alias, derived(v, res), n.Pos); err != nil {
				return true, err
			}
		}
		return true, nil
	}
	name := namespaceName(d.Path)
	if _, taken := e.lookup(name); name == "" || taken {
		return true, nil
	}
	return true, in.defineImported(e, name, res, d.Pos)
}
