package hooks

import "github.com/guardrun/guardrun/interp/value"

// Stack is a push/pop stack of frames of one `@mx` namespace.
type Stack[T any] struct{ frames []T }

// Push makes f the current frame.
func (s *Stack[T]) Push(f T) { s.frames = append(s.frames, f) }

// Pop removes the current frame. Popping an empty stack is a bug in the
// caller and panics, so that unbalanced pushes cannot go unnoticed.
func (s *Stack[T]) Pop() {
	if len(s.frames) == 0 {
		panic("hooks: pop of an empty context stack")
	}
	var zero T
	s.frames[len(s.frames)-1] = zero
	s.frames = s.frames[:len(s.frames)-1]
}

// Top returns the current frame and whether there is one.
func (s *Stack[T]) Top() (T, bool) {
	if len(s.frames) == 0 {
		var zero T
		return zero, false
	}
	return s.frames[len(s.frames)-1], true
}

// reset empties s, clearing the frames so they keep nothing alive.
func (s *Stack[T]) reset() {
	clear(s.frames)
	s.frames = s.frames[:0]
}

// Len is the number of frames.
func (s *Stack[T]) Len() int { return len(s.frames) }

// At returns frame i, counted from the bottom (0) to the top (Len()-1).
func (s *Stack[T]) At(i int) T { return s.frames[i] }

// PipeFrame is what `@mx.pipe` shows while a pipeline stage runs.
type PipeFrame struct {
	// Stage is the 1-based stage number, Try the attempt of that stage.
	Stage int
	Try   int
	// Input is the stage's input and Hint the last retry hint, if any.
	Input *value.Variable
	Hint  *value.Variable
	// Guards is the guard history of the pipeline (`@p.guards`), which
	// the guards of its stages keep appending to; nil for none.
	Guards *[]*value.Variable
}

// GuardFrame is what `@mx.guard` shows while a guard or denied handler
// runs. The guard package fills Fields; this package only scopes it.
// Both are assembled from members (value.Record), so that what they hold
// keeps its descriptor.
type GuardFrame struct {
	Fields *value.Variable
	// BuildFields, when Fields is nil, builds Fields the first time
	// `@mx.guard` (or the whole `@mx`) is read: most guards never read
	// it, and it is the costliest part of a guard's context. It must give
	// the same value on every call while the frame is active.
	BuildFields func() *value.Variable
	// Ambient holds the other `@mx` keys a guard sees (labels, taint,
	// sources, args, denied); they are set on `@mx` while the frame is
	// active.
	Ambient *value.Variable
	// Tools is the tool lineage of the guarded value
	// (`@mx.tools.history`).
	Tools []string
}

// fields is the frame's `@mx.guard`, nil when it has none.
func (g GuardFrame) fields() *value.Variable {
	if g.Fields == nil && g.BuildFields != nil {
		return g.BuildFields()
	}
	return g.Fields
}

// Context keeps the `@mx` namespaces that follow the dynamic extent of an
// operation, a pipeline stage or a guard evaluation: each is pushed when
// it starts and popped when it ends, so `@mx` always describes the
// innermost one.
type Context struct {
	Op    Stack[*OperationContext]
	Pipe  Stack[PipeFrame]
	Guard Stack[GuardFrame]
}

// Reset empties every stack, keeping the room they have (an evaluation
// reused for another decision).
func (c *Context) Reset() {
	c.Op.reset()
	c.Pipe.reset()
	c.Guard.reset()
}

// WithOp pushes op, runs f and pops op, also when f panics.
func (c *Context) WithOp(op *OperationContext, f func() (*value.Variable, error)) (*value.Variable, error) {
	c.Op.Push(op)
	defer c.Op.Pop()
	return f()
}

// InGuard reports whether a guard frame is active: only then does
// `@mx.guard` exist.
func (c *Context) InGuard() bool { return c.Guard.Len() > 0 }

// AddTo sets the stacked namespaces on the ambient `@mx` record r: `op`
// (and its alias `operation`) when an operation is running, `pipe` inside
// a pipeline stage, `guard` inside a guard. The values they hold (a
// stage's input, a guard's input and arguments) keep their descriptors.
func (c *Context) AddTo(r *value.Record) {
	if op, ok := c.Op.Top(); ok && op != nil {
		obj := value.New(op.Object())
		r.Set("op", obj)
		r.Set("operation", obj)
	}
	if p, ok := c.Pipe.Top(); ok {
		r.Set("pipe", pipeObject(p))
	}
	if g, ok := c.Guard.Top(); ok {
		if f := g.fields(); f != nil {
			r.Set("guard", f)
		}
		if o := ambientObject(g); o != nil {
			for _, k := range o.Keys {
				r.Set(k, ambientMember(g, o, k))
			}
		}
	}
}

// Member is the value AddTo sets at key, built alone (the others are not
// built): a read of `@mx.key` need not assemble the whole `@mx`. ok is
// false when AddTo sets nothing at key. Later sets of AddTo win, so the
// namespaces are tried in the reverse order.
func (c *Context) Member(key string) (*value.Variable, bool) {
	if g, ok := c.Guard.Top(); ok {
		if o := ambientObject(g); o != nil {
			for _, k := range o.Keys {
				if k == key {
					return ambientMember(g, o, k), true
				}
			}
		}
		if key == "guard" {
			if f := g.fields(); f != nil {
				return f, true
			}
		}
	}
	switch key {
	case "pipe":
		if p, ok := c.Pipe.Top(); ok {
			return pipeObject(p), true
		}
	case "op", "operation":
		if op, ok := c.Op.Top(); ok && op != nil {
			return value.New(op.Object()), true
		}
	}
	return nil, false
}

// OpField is the data of `@mx.op.field` (or `@mx.operation.field`: key
// is either), read from the current operation without rendering its
// object; ok is false when `@mx.key` is not the operation object (none
// is running, or a guard's ambient key of that name replaces it).
func (c *Context) OpField(key, field string) (any, bool) {
	if key != "op" && key != "operation" {
		return nil, false
	}
	if g, ok := c.Guard.Top(); ok {
		if o := ambientObject(g); o != nil {
			for _, k := range o.Keys {
				if k == key {
					return nil, false
				}
			}
		}
	}
	op, ok := c.Op.Top()
	if !ok || op == nil {
		return nil, false
	}
	d, ok := op.Field(field)
	if !ok {
		return value.Undefined{}, true
	}
	return d, true
}

// pipeObject is `@mx.pipe` for frame p.
func pipeObject(p PipeFrame) *value.Variable {
	po := value.NewRecord()
	po.SetData("stage", float64(p.Stage))
	po.SetData("try", float64(p.Try))
	po.Set("input", p.Input)
	if p.Hint != nil {
		po.Set("hint", p.Hint)
	} else {
		po.SetData("hint", nil)
	}
	var guards []*value.Variable
	if p.Guards != nil {
		guards = *p.Guards
	}
	po.Set("guards", value.ListOf(guards))
	return po.Variable()
}

// ambientObject is the object of g's ambient keys, nil when there are none.
func ambientObject(g GuardFrame) *value.Object {
	if g.Ambient == nil {
		return nil
	}
	o, _ := g.Ambient.Data.(*value.Object)
	return o
}

// ambientMember is the ambient key k of g (o is its object), with its own
// descriptor when the ambient object was assembled from members.
func ambientMember(g GuardFrame, o *value.Object, k string) *value.Variable {
	m, ok := g.Ambient.Member(k)
	if !ok {
		m = &value.Variable{Data: o.Values[k], Security: g.Ambient.Security}
	}
	return m
}
