package value

import (
	"strconv"

	"github.com/guardrun/guardrun/taint"
)

// Members are the values an object or array was assembled from, each
// with its own descriptor. The interpreter assembles its context objects
// (`@mx`, `@p`) this way: they hold the operation's inputs, stage
// outputs and guard replacements next to plain metadata, so a read of one
// field must carry the descriptor of what that field holds, and the whole
// object the union of them all.
type Members struct {
	vars map[string]*Variable
	// union is the container's Security when it was assembled: a copy
	// whose descriptor changed since is no longer described by vars
	// alone (see Member).
	union taint.Descriptor
}

// Record assembles an object from values that keep their descriptors.
// The zero Record is not ready; use NewRecord.
type Record struct {
	obj  *Object
	vars map[string]*Variable
	c    taint.Collector
}

// NewRecord returns an empty Record.
func NewRecord() *Record {
	return &Record{obj: NewObject(), vars: map[string]*Variable{}}
}

// Set sets key to v's data; a read of key gives v with its descriptor.
// A nil v is undefined.
func (r *Record) Set(key string, v *Variable) {
	if v == nil {
		v = New(Undefined{})
	}
	r.obj.Set(key, v.Data)
	r.vars[key] = v
	r.c.Add(v.Security)
}

// SetData sets key to data that carries no descriptor (metadata such as
// names, counters and label lists).
func (r *Record) SetData(key string, data any) { r.Set(key, New(data)) }

// Get returns the value set at key.
func (r *Record) Get(key string) (*Variable, bool) {
	v, ok := r.vars[key]
	return v, ok
}

// Variable is the assembled object: its data, the union of the members'
// descriptors, and the members themselves for reads of one field.
func (r *Record) Variable() *Variable {
	d := r.c.Descriptor()
	return &Variable{Data: r.obj, Security: d, Members: &Members{vars: r.vars, union: d}}
}

// ListOf assembles an array from values that keep their descriptors: an
// index read gives the item with its own descriptor, the whole array
// carries their union.
func ListOf(items []*Variable) *Variable {
	data := make([]any, len(items))
	vars := make(map[string]*Variable, len(items))
	var c taint.Collector
	for i, it := range items {
		if it == nil {
			it = New(Undefined{})
		}
		data[i] = it.Data
		vars[strconv.Itoa(i)] = it
		c.Add(it.Security)
	}
	d := c.Descriptor()
	return &Variable{Data: data, Security: d, Members: &Members{vars: vars, union: d}}
}

// Member returns the value v was assembled with at key (a field name, or
// an array index in decimal), with its own descriptor; ok is false when v
// was not assembled from members or has none at key, and the caller
// reads the data with v's whole descriptor instead. A copy of v whose
// descriptor changed since (a label added by a guard) gives members that
// also carry v's descriptor, so that no label added to the whole is lost.
func (v *Variable) Member(key string) (*Variable, bool) {
	if v == nil || v.Members == nil {
		return nil, false
	}
	m, ok := v.Members.vars[key]
	if !ok {
		return nil, false
	}
	c := *m
	if !v.Security.Equal(v.Members.union) {
		c.Security = m.Security.Merge(v.Security)
	}
	return &c, true
}
