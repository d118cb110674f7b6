package interp

import (
	"path/filepath"
	"strings"

	"github.com/guardrun/guardrun/ast"
	"github.com/guardrun/guardrun/interp/value"
)

// fileTemplate is an exe's `template "path"` body as read when the exe
// was defined: mlld reads and parses the file there (a missing file is an
// error of the definition), and every call interpolates that text.
type fileTemplate struct {
	lit *ast.StringLit
	// src is the file as loaded: its provenance goes to every result.
	src *value.Variable
}

// readTemplateFile reads and parses an exe's external template file (its
// path evaluated where the exe is defined).
func (in *interp) readTemplateFile(e *env, x *ast.TemplateFile) (*fileTemplate, error) {
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
	return &fileTemplate{lit: lit, src: src}, nil
}

// evalFileTemplate interpolates a template file read at definition in
// the caller's scope, where the exe's parameters are bound. The result
// carries the file's provenance and whatever the template interpolated.
func (in *interp) evalFileTemplate(e *env, t *fileTemplate) (*value.Variable, error) {
	v, err := in.evalString(e, t.lit)
	if err != nil {
		return nil, err
	}
	return derived(v.Data, v, t.src), nil
}

// evalTemplateFile reads and interpolates a template file where no exe
// read it beforehand.
func (in *interp) evalTemplateFile(e *env, x *ast.TemplateFile) (*value.Variable, error) {
	t, err := in.readTemplateFile(e, x)
	if err != nil {
		return nil, err
	}
	return in.evalFileTemplate(e, t)
}
