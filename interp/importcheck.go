package interp

import "github.com/guardrun/guardrun/ast"

// checkImports refuses, before a document's first directive runs, an
// import at its top level whose file is missing (or lies outside the
// base directory): the run, or Load, fails at the import with the error
// the import itself would give, instead of after the directives before
// it ran.
func (in *interp) checkImports(e *env, doc *ast.Document) error {
	for _, n := range doc.Body {
		if d, ok := n.(*ast.ImportDirective); ok {
			if err := in.files.exists(e.mod.dir, d.Path, d.Pos); err != nil {
				return err
			}
		}
	}
	return nil
}

// CheckImports is checkImports for a program not yet run: doc is the
// script whose base directory (and own directory, unless its name says
// another) is dir. Compile uses it for a script read from a file.
func CheckImports(doc *ast.Document, dir string) error {
	if doc == nil || dir == "" {
		return nil
	}
	has := false
	for _, n := range doc.Body {
		if _, ok := n.(*ast.ImportDirective); ok {
			has = true
			break
		}
	}
	if !has {
		return nil
	}
	f := &files{base: baseDir(Options{Dir: dir}, doc.File)}
	defer f.close()
	in := &interp{files: f}
	mod := newModule(doc.File, scriptDir(doc.File, f.base))
	return in.checkImports(in.rootEnv(mod), doc)
}
