package hooks

import (
	"github.com/guardrun/guardrun/interp/value"
	"github.com/guardrun/guardrun/lang"
)

// Location is where an operation appears in its script.
type Location struct {
	File   string
	Line   int
	Column int
}

// OperationContext describes one hooked operation (SPEC §5.5): what kind
// of operation it is and what it acts on. Hooks read it; they do not
// change it.
type OperationContext struct {
	// Type is the operation kind: "var", "show", "run", "output",
	// "append", "log", "exe", "pipeline-stage".
	Type string
	// Subtype refines Type: "showTemplate", "runCommand", "outputFile",
	// "exeCode", … (SPEC §5.5).
	Subtype string
	// Name is the variable or exe the operation is about, without '@'.
	Name string
	// Labels are the data labels the operation declares (exe labels,
	// labels of a `var` declaration). The taint post-hook merges them into
	// the result.
	Labels []string
	// OpLabels are the operation labels (op:cmd, op:cmd:git, op:js…)
	// computed for checking. They never reach a value.
	OpLabels []string
	// Commands are, for a command line or shell body, the operation labels
	// of each simple command it runs (op:cmd, op:cmd:tee,
	// op:cmd:tee:leaked.txt). Label-flow rules check every one on its own,
	// so an allowed first command does not cover the others.
	Commands [][]string
	// Taint is source taint the operation adds to its result after its
	// labels (src:template for template bodies, src:exe for blocks).
	Taint []string
	// Sources are provenance strings the operation adds to its result.
	Sources []string
	// Command is the command text of a run or command-bodied exe.
	Command string
	// Target is the destination of an effect (a file path, "stdout").
	Target string
	// Location is where the operation appears.
	Location Location
	// Params are the parameter names of an exe call or tool call, in the
	// order of the inputs (`@mx.args.<name>`; `@mx.op.metadata.params`).
	Params []string
	// Unchecked is set when the command line is beyond what the policy
	// can parse (nested too deep): its operation labels are incomplete,
	// and the caller must not allow it on them.
	Unchecked bool
	// Metadata holds other operation-specific details for hooks, shown
	// under `@mx.op.metadata` with the params.
	Metadata map[string]any
	// Effects, for a tool call, builds what the call will do (for a
	// shell line: as bash runs it) — `@mx.op.effects`: reads, writes,
	// deletes, network, … — when a guard reads it; nil for another
	// operation, which shows an empty object.
	Effects func() *value.Object
	// PolicyAllowed is set when a privileged guard's explicit allow
	// overrode a policy label-flow denial of this operation; label-flow
	// checks of commands run inside its extent honour the override.
	PolicyAllowed bool
}

// AllLabels returns the operation's labels followed by its operation
// labels: the set `@mx.op.labels` shows.
func (op *OperationContext) AllLabels() []string {
	out := make([]string, 0, len(op.Labels)+len(op.OpLabels))
	out = append(out, op.Labels...)
	return append(out, op.OpLabels...)
}

// Object renders the operation as the `@mx.op` value.
func (op *OperationContext) Object() *value.Object {
	o := &value.Object{Keys: make([]string, 0, len(lang.OpFields)), Values: make(map[string]any, len(lang.OpFields))}
	for _, k := range lang.OpFields {
		d, _ := op.Field(k)
		o.Set(k, d)
	}
	return o
}

// Field is the data of one key of Object, built alone (`@mx.op.type`
// need not render the labels and metadata); ok is false for a key the
// object does not have.
func (op *OperationContext) Field(key string) (any, bool) {
	switch key {
	case "type":
		return op.Type, true
	case "subtype":
		return op.Subtype, true
	case "name":
		return op.Name, true
	case "labels":
		return strings(op.AllLabels()), true
	case "opLabels":
		return strings(op.OpLabels), true
	case "command":
		return op.Command, true
	case "target":
		return op.Target, true
	case "metadata":
		meta := value.NewObject()
		if op.Params != nil {
			meta.Set("params", strings(op.Params))
		}
		for _, k := range sortedKeys(op.Metadata) {
			if k != "params" || op.Params == nil {
				meta.Set(k, op.Metadata[k])
			}
		}
		return meta, true
	case "effects":
		if op.Effects == nil {
			return value.NewObject(), true
		}
		return op.Effects(), true
	}
	return nil, false
}

func strings(xs []string) []any {
	out := make([]any, len(xs))
	for i, x := range xs {
		out[i] = x
	}
	return out
}
