package interp

import (
	"path/filepath"
	"strings"

	"github.com/guardrun/guardrun/ast"
	"github.com/guardrun/guardrun/interp/value"
)

// importBare handles `import "./file.mld"` with neither names nor an
// alias: the module runs (its guards and policies register) and, as in
// mlld, its exports become a namespace named after the file
// (`strict-config.mld` → @strict_config). A name already in use is left
// alone: the import then only runs the module, as before.
func (in *interp) importBare(e *env, d *ast.ImportDirective, mod *module) error {
	name := namespaceName(d.Path)
	if name == "" {
		return nil
	}
	if _, taken := e.lookup(name); taken {
		return nil
	}
	exports := mod.exported()
	o := value.NewObject()
	ns := value.New(o)
	for _, n := range mod.exportNames() {
		v := exports[n]
		o.Set(n, v.Data)
		ns.Security = ns.Security.Merge(v.Security)
	}
	return in.defineImported(e, name, ns, d.Pos)
}

// namespaceName is the namespace a bare import of path gets: the file's
// base name without extension, with every character that cannot be in an
// identifier replaced by _.
func namespaceName(path string) string {
	base := filepath.Base(path)
	base = strings.TrimSuffix(base, filepath.Ext(base))
	base = strings.TrimLeft(base, ".")
	var b strings.Builder
	for i, r := range base {
		ok := r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9'
		if !ok {
			r = '_'
		}
		b.WriteRune(r)
	}
	return b.String()
}
