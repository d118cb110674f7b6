package value

import "github.com/guardrun/guardrun/taint"

// Undefined is the value of a missing field, a missing argument or an
// action that produced nothing. It is distinct from null (nil).
type Undefined struct{}

// Object is an ordered string-keyed map: key order is insertion order, so
// output is deterministic and matches how the script wrote it.
type Object struct {
	Keys   []string
	Values map[string]any
}

// NewObject returns an empty object.
func NewObject() *Object { return &Object{Values: map[string]any{}} }

// Set sets key to v, appending the key if it is new.
func (o *Object) Set(key string, v any) {
	if _, ok := o.Values[key]; !ok {
		o.Keys = append(o.Keys, key)
	}
	o.Values[key] = v
}

// Get returns the value at key.
func (o *Object) Get(key string) (any, bool) {
	v, ok := o.Values[key]
	return v, ok
}

// Len is the number of keys.
func (o *Object) Len() int { return len(o.Keys) }

// Callable is implemented by executable values (exes, builtin
// transformers). The interpreter defines the concrete types.
type Callable interface {
	// CallableName is the name used in messages, without '@'.
	CallableName() string
}

// Variable is a value plus its security descriptor and provenance.
//
// Data holds one of: nil (null), Undefined{}, bool, float64, string,
// []any, *Object, or a Callable. Elements of []any and *Object values hold
// the same kinds (never *Variable): a value read out of a container carries
// the container's descriptor.
//
// Text, when non-nil, is the original text a structured value was parsed
// from (for `.mx.text`).
type Variable struct {
	Data     any
	Security taint.Descriptor
	Text     *string
	// Source names where the value came from (a directive, "js", "cmd"…),
	// for messages and later provenance.
	Source string
	// Items, when non-nil, are the member values of a per-operation guard
	// input list (`@input` of an operation guard): each keeps its own
	// descriptor while Data holds their data and Security their union.
	Items []*Variable
	// Members, when non-nil, are the values an object or array was
	// assembled from (Record, ListOf): a read of one field or index gives
	// that member's descriptor rather than Security, the union of all.
	Members *Members
	// Meta, when non-nil, holds the file metadata of a loaded file
	// (filename, relative, absolute, fm, …): `.mx` fields read it first.
	// ItemMeta holds the same per element of an array of loaded files
	// (a glob), nil where an element has none.
	Meta     *Object
	ItemMeta []*Object
	// Keep marks a loaded file taken with `.keep`: code blocks receive it
	// with its metadata ({ text, data, type, mx }) instead of its data.
	Keep bool
	// Deferred, when non-nil, is a template (an interpreter node) that is
	// rendered again where the variable is read: a :::…::: template whose
	// {{names}} were not all defined when it was assigned (mlld keeps such
	// templates unrendered until use). Data holds the rendering so far.
	Deferred any
	// Namespace, when set, is the module file a namespace import (`import
	// "x.mld" as @ns`) made this object from: reading a field it does not
	// have is an error, not undefined.
	Namespace string
	// Iter, when non-nil, is where a for loop's element came from:
	// `.mx.key` (an object key or array index) and `.mx.index` (arrays).
	Iter *IterPos
}

// IterPos is the position of a for loop's element in its source. Key is
// the object key (nil for an array element, whose key is Index).
type IterPos struct {
	Key   any
	Index int
	Array bool
}

// KeyValue is the element's key: its object key, or its array index.
func (p *IterPos) KeyValue() any {
	if p.Array {
		return float64(p.Index)
	}
	return p.Key
}

// New wraps data in a Variable with an empty descriptor.
func New(data any) *Variable { return &Variable{Data: data} }
