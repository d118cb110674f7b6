package interp

import (
	"os"
	"path"
	"sort"

	"github.com/guardrun/guardrun/ast"
	"github.com/guardrun/guardrun/interp/value"
)

// openImport looks up the path an import names, once: isDir when it is
// a directory, which importDirectory imports; else, when loadModule is
// going to read it (it is not loaded yet and there is a parser), file is
// the open file, handed to loadModule so that it is not opened again.
// What cannot be resolved or looked up is left to loadModule to report.
func (in *interp) openImport(e *env, d *ast.ImportDirective) (file *openFile, isDir bool) {
	rel, abs, err := in.files.resolve(e.mod.dir, d.Path, d.Pos)
	if err != nil {
		return nil, false
	}
	root, err := in.files.open()
	if err != nil {
		return nil, false
	}
	if _, loaded := in.modules[abs]; !loaded && in.opts.Parse != nil {
		if f, err := root.Open(rel); err == nil {
			st, err := f.Stat()
			if err == nil && !st.IsDir() {
				return &openFile{File: f, info: st}, false
			}
			f.Close()
			if err == nil {
				return nil, true
			}
		}
		// What cannot be opened (a directory without read permission,
		// still imported as one) is looked up without opening it.
	}
	st, err := root.Stat(rel)
	return nil, err == nil && st.IsDir()
}

// importRoot is the import's path relative to the base directory, and
// the base directory's root to read it in.
func (in *interp) importRoot(e *env, d *ast.ImportDirective) (string, *os.Root, error) {
	rel, _, err := in.files.resolve(e.mod.dir, d.Path, d.Pos)
	if err != nil {
		return "", nil, err
	}
	root, err := in.files.open()
	if err != nil {
		return "", nil, in.files.ioError(err, d.Path, d.Pos)
	}
	return rel, root, nil
}

// importDirectory imports a directory (mlld's directory imports): every
// subdirectory holding an index.mld is imported as a module, and the
// directory's value is an object with one entry per subdirectory, its
// exports plus `__meta__`, the module's frontmatter.
func (in *interp) importDirectory(e *env, d *ast.ImportDirective) error {
	// openImport resolved the path and opened the root: this does not
	// fail here.
	rel, root, err := in.importRoot(e, d)
	if err != nil {
		return err
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
		mod, err := in.loadModule(e, sub, nil)
		if err != nil {
			return err
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
		return in.defineImported(e, d.Namespace, res, d.Pos)
	case len(d.Names) > 0:
		for _, n := range d.Names {
			v, ok := o.Get(n.Name)
			if !ok {
				return newError(KindImport, n.Pos, "name a subdirectory that holds an index.mld",
					"Import '%s' not found in %s", n.Name, d.Path)
			}
			alias := n.Alias
			if alias == "" {
				alias = n.Name
			}
			// mlld has no directory imports: an entry selected by its
			// own name is named by the file system, not the author, and
			// is not refused for a name mlld reserves (`import { @base }
			// from "./team"`, as workspace policies are written). An
			// alias is the author's, and is.
			define := in.defineImported
			if n.Alias == "" {
				define = in.defineImportedAs
			}
			if err := define(e, alias, derived(v, res), n.Pos); err != nil {
				return err
			}
		}
		return nil
	}
	name := namespaceName(d.Path)
	if _, taken := e.lookup(name); name == "" || taken {
		return nil
	}
	return in.defineImported(e, name, res, d.Pos)
}
