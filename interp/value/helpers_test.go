package value

// obj builds an ordered object from alternating keys and values.
func obj(kv ...any) *Object {
	o := NewObject()
	for i := 0; i+1 < len(kv); i += 2 {
		o.Set(kv[i].(string), kv[i+1])
	}
	return o
}

func arr(items ...any) []any {
	if items == nil {
		return []any{}
	}
	return items
}

type fn string

func (f fn) CallableName() string { return string(f) }
