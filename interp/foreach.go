package interp

import (
	"strings"

	"github.com/guardrun/guardrun/ast"
	"github.com/guardrun/guardrun/interp/value"
)

// evalShowJoin evaluates what `show foreach …` shows: the results as
// text, each formatted by the template option ({{result}}, {{index}}) and
// joined by the separator option (default a line break).
func (in *interp) evalShowJoin(e *env, x *ast.ShowJoin) (*value.Variable, error) {
	v, err := in.evalExpr(e, x.Value)
	if err != nil {
		return nil, err
	}
	sep, tmpl := "\n", ""
	if x.Options != nil {
		o, err := in.evalExpr(e, x.Options)
		if err != nil {
			return nil, err
		}
		if obj, ok := o.Data.(*value.Object); ok {
			if s, ok := obj.Get("separator"); ok {
				sep = value.Text(s)
			}
			if t, ok := obj.Get("template"); ok {
				tmpl = value.Text(t)
			}
		}
	}
	arr, ok := structuredData(v.Data).([]any)
	if !ok {
		return v, nil
	}
	parts := make([]string, len(arr))
	for i, el := range arr {
		s := value.Text(el)
		if tmpl != "" {
			s = strings.NewReplacer("{{result}}", s, "{{index}}", value.FormatNumber(float64(i))).Replace(tmpl)
		}
		parts[i] = s
	}
	return derived(strings.Join(parts, sep), v), nil
}

// snippet renders `@x?`…“: the snippet when v is truthy, else nothing.
// The result carries v's descriptor as well as the snippet's.
func (in *interp) snippet(e *env, p *ast.InterpPart, v *value.Variable) (*value.Variable, string, error) {
	if !value.Truthy(v.Data) {
		return derived("", v), "", nil
	}
	s, err := in.evalString(e, &ast.StringLit{Pos: p.Pos, Kind: ast.Backtick, Parts: p.Snippet})
	if err != nil {
		return nil, "", err
	}
	return derived(s.Data, v, s), "", nil
}
