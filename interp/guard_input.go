package interp

import (
	"github.com/guardrun/guardrun/ast"
	"github.com/guardrun/guardrun/interp/value"
)

// listAccess resolves the accessors special to a per-operation guard's
// @input list (SPEC §5.6): `[i]` is the input itself with its own
// descriptor, `.any` / `.all` / `.none` quantify the rest of the path over
// the inputs, `.mx` aggregates their metadata (`.mx.tokens` is one count
// per input), and `.totalTokens()` / `.maxTokens()` sum and maximise the
// token counts. handled is false for any other accessor.
func (in *interp) listAccess(e *env, cur *value.Variable, path []ast.Accessor, i int, r *ast.Ref) (res *value.Variable, next int, done, handled bool, err error) {
	acc := path[i]
	switch acc.Kind {
	case ast.AccessIndex:
		idx, err := in.evalExpr(e.withLenient(false), acc.Index)
		if err != nil {
			return nil, 0, false, true, err
		}
		n, ok := idx.Data.(float64)
		if !ok {
			return nil, 0, false, false, nil
		}
		k := int(n)
		if k < 0 || k >= len(cur.Items) || float64(k) != n {
			// Past the end of the inputs is null, as mlld shows it
			// (SPEC §8 item 2).
			return keyed(value.New(nil), idx), i + 1, false, true, nil
		}
		return keyed(cur.Items[k], idx), i + 1, false, true, nil
	case ast.AccessField:
		call := i+1 < len(path) && path[i+1].Kind == ast.AccessCall
		switch acc.Name {
		case "any", "all", "none":
			if call {
				return nil, 0, false, false, nil
			}
			v, err := in.quantify(e, cur.Items, acc.Name, path[i+1:], r)
			return v, len(path), true, true, err
		case "mx":
			if call {
				return nil, 0, false, false, nil
			}
			o, err := listMx(cur, path[i+1:], acc.Pos)
			if err != nil {
				return nil, 0, false, true, err
			}
			return derived(o, cur), i + 1, false, true, nil
		case "totalTokens", "maxTokens":
			if !call {
				return nil, 0, false, false, nil
			}
			total, max := 0.0, 0.0
			for _, it := range cur.Items {
				n, err := tokenCount(it, acc.Pos)
				if err != nil {
					return nil, 0, false, true, err
				}
				total += n
				if n > max {
					max = n
				}
			}
			if acc.Name == "totalTokens" {
				return value.New(total), i + 2, false, true, nil
			}
			return value.New(max), i + 2, false, true, nil
		}
	}
	return nil, 0, false, false, nil
}

// quantify evaluates rest on every input and combines the truth values:
// any (at least one), all (every one; true for none), none (no one).
// `.text` first gives the input's text (strings as they are, other values
// as compact JSON).
func (in *interp) quantify(e *env, items []*value.Variable, q string, rest []ast.Accessor, r *ast.Ref) (*value.Variable, error) {
	count := 0
	for _, it := range items {
		v := it
		path := rest
		if len(path) > 0 && path[0].Kind == ast.AccessField && path[0].Name == "text" &&
			!(len(path) > 1 && path[1].Kind == ast.AccessCall && path[0].Name != "text") {
			v = derived(rawText(it), it)
			path = path[1:]
		}
		res, err := in.applyPath(e, v, path, r)
		if err != nil {
			return nil, err
		}
		if value.Truthy(res.Data) {
			count++
		}
	}
	switch q {
	case "any":
		return value.New(count > 0), nil
	case "all":
		return value.New(count == len(items)), nil
	}
	return value.New(count == 0), nil
}

// listMx is `@input.mx` of a per-operation list: the union of labels,
// taint and sources, and the token counts per input. Like mxFor, when the
// path reads one field of it only that field is computed: reading the
// labels must not count tokens (nor fail when counting fails).
func listMx(cur *value.Variable, rest []ast.Accessor, pos ast.Pos) (*value.Object, error) {
	only := ""
	if len(rest) > 0 && rest[0].Kind == ast.AccessField && (len(rest) == 1 || rest[1].Kind != ast.AccessCall) {
		only = rest[0].Name
	}
	want := func(k string) bool { return only == "" || only == k }
	o := value.NewObject()
	if want("labels") {
		o.Set("labels", stringList(cur.Security.Labels()))
	}
	if want("taint") {
		o.Set("taint", stringList(cur.Security.Taint()))
	}
	if want("sources") {
		o.Set("sources", stringList(cur.Security.Sources()))
	}
	if want("tokens") {
		toks := make([]any, 0, len(cur.Items))
		for _, it := range cur.Items {
			n, err := tokenCount(it, pos)
			if err != nil {
				return nil, err
			}
			toks = append(toks, n)
		}
		o.Set("tokens", toks)
	}
	if want("length") {
		o.Set("length", float64(len(cur.Items)))
	}
	return o, nil
}

// tokenCount is an input's `.mx.tokens`.
func tokenCount(v *value.Variable, pos ast.Pos) (float64, error) {
	t, _, err := mxField(v, "tokens", pos)
	if err != nil {
		return 0, err
	}
	n, _ := t.(float64)
	return n, nil
}
