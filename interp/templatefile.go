package interp

import (
	"path/filepath"
	"strings"

	"github.com/guardrun/guardrun/ast"
	"github.com/guardrun/guardrun/interp/value"
)

// evalTemplateFile reads and interpolates an external template file (an
// exe's `template "path"` body) in the caller's scope, where the exe's
// parameters are bound. The result carries the file's provenance and
// whatever the template interpolated.
func (in *interp) evalTemplateFile(e *env, x *ast.TemplateFile) (*value.Variable, error) {
	p, err := in.evalString(e, x.Path)
	if err != nil {
		return nil, err
	}
	name := value.Text(p.Data)
	src, b, abs, err := in.loadOne(e, name, x.Pos)
	if err != nil {
		return nil, err
	}
	if in.opts.ParseTemplate == nil {
		return nil, newError(KindUnexpected, x.Pos, "run scripts through the guardrun facade", "template files need a template parser")
	}
	mustache := strings.EqualFold(filepath.Ext(abs), ".mtt")
	lit, err := in.opts.ParseTemplate(name, b, mustache)
	if err != nil {
		return nil, newError(KindFile, x.Pos, "fix the template file's syntax", "cannot parse template %s: %v", name, err)
	}
	v, err := in.evalString(e, lit)
	if err != nil {
		return nil, err
	}
	return derived(v.Data, v, src), nil
}
