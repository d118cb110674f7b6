package interp

import (
	"strings"

	"github.com/guardrun/guardrun/ast"
	"github.com/guardrun/guardrun/interp/value"
)

// evalString evaluates a quoted string or template. The result's
// descriptor is the union of the interpolated values'.
func (in *interp) evalString(e *env, s *ast.StringLit) (*value.Variable, error) {
	var b strings.Builder
	res := value.New(nil)
	for _, part := range s.Parts {
		switch p := part.(type) {
		case *ast.TextPart:
			b.WriteString(p.Text)
		case *ast.InterpPart:
			if s.Kind == ast.SingleQuote {
				continue
			}
			v, literal, err := in.interpolate(e, p)
			if err != nil {
				return nil, err
			}
			if literal != "" {
				b.WriteString(literal)
				continue
			}
			res.Security = mergeDesc(res.Security, v.Security)
			b.WriteString(value.Text(v.Data))
		}
	}
	res.Data = b.String()
	return res, nil
}

// interpolate evaluates one interpolation. A reference to an unknown
// variable is not an error: literal holds the reference as written.
func (in *interp) interpolate(e *env, p *ast.InterpPart) (v *value.Variable, literal string, err error) {
	if r := rootRef(p.Value); r != nil && !e.resolvable(r.Name) {
		if p.Fallback != nil {
			fb, err := in.evalExpr(e, p.Fallback)
			return fb, "", err
		}
		if p.OmitFalsy {
			return value.New(""), "", nil
		}
		if ref, ok := p.Value.(*ast.Ref); ok {
			return nil, refText(ref), nil
		}
		return nil, "@" + r.Name, nil
	}
	v, err = in.evalExpr(e, p.Value)
	if err != nil {
		return nil, "", err
	}
	if p.Fallback != nil && isNullish(v) {
		fb, err := in.evalExpr(e, p.Fallback)
		return fb, "", err
	}
	if p.OmitFalsy && !value.Truthy(v.Data) {
		return derived("", v), "", nil
	}
	if isSkip(v) || isRetry(v) {
		return undefined(), "", nil
	}
	return v, "", nil
}

// interpolatePart is interpolate for command templates: literal reports
// that the text is the reference as written (left for the shell).
func (in *interp) interpolatePart(e *env, p *ast.InterpPart) (text string, literal bool, v *value.Variable, err error) {
	v, lit, err := in.interpolate(e, p)
	if err != nil {
		return "", false, nil, err
	}
	if lit != "" {
		return lit, true, nil, nil
	}
	return rawText(v), false, v, nil
}

// rootRef is the reference an interpolation starts from, if any.
func rootRef(x ast.Expr) *ast.Ref {
	switch x := x.(type) {
	case *ast.Ref:
		return x
	case *ast.PipelineExpr:
		return rootRef(x.Source)
	}
	return nil
}
