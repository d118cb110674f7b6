package interp

import (
	"path/filepath"
	"strings"

	"github.com/guardrun/guardrun/ast"
	"github.com/guardrun/guardrun/interp/guard"
	"github.com/guardrun/guardrun/interp/hooks"
	"github.com/guardrun/guardrun/interp/value"
)

// writeTarget writes v to a stream or file.
func (in *interp) writeTarget(e *env, v *value.Variable, t ast.OutputTarget, appendMode bool, pos ast.Pos) error {
	switch t.Stream {
	case "stdout":
		in.out.writeStdout(withNewline(rawText(v)))
		return nil
	case "stderr":
		in.out.writeStderr(withNewline(rawText(v)))
		return nil
	}
	if t.Path == nil {
		return newError(KindEffect, pos, "write `to stdout`, `to stderr` or `to \"file\"`", "output needs a target")
	}
	pv, err := in.evalExpr(e, t.Path)
	if err != nil {
		return atPos(err, KindEffect, pos)
	}
	path := value.Text(pv.Data)
	var content string
	ext := strings.ToLower(filepath.Ext(path))
	switch {
	case appendMode && ext == ".json":
		return newError(KindEffect, pos, "append JSON records to a .jsonl file, or output the whole document to the .json file",
			"Cannot append to .json files. Use a .jsonl extension for JSON lines output.")
	case appendMode && ext == ".jsonl":
		if !isJSONRecord(v) {
			return newError(KindEffect, pos, "append an object, an array or a string holding JSON",
				"Content appended to .jsonl must be valid JSON. Provide a variable or template that resolves to JSON data.")
		}
		content = value.ToJSON(jsonData(v), false) + "\n"
	case ext == ".json" && !appendMode:
		if s, ok := v.Data.(string); ok {
			content = s
		} else {
			content = value.ToJSON(v.Data, true)
		}
	case appendMode:
		content = withNewline(rawText(v))
	default:
		if isStructured(v.Data) && v.Text == nil {
			content = value.ToJSON(v.Data, true)
		} else {
			content = rawText(v)
		}
	}
	return in.files.write(e.mod.dir, path, content, v.Security, appendMode, pos)
}

func jsonData(v *value.Variable) any {
	if s, ok := v.Data.(string); ok {
		return structuredData(s)
	}
	return v.Data
}

// runEffect runs an inline pipeline effect on the current value. The
// effect is a guarded operation of its kind with subtype `effect` (SPEC
// §5.12); it happens only once the guards allowed it, and can never be
// retried.
func (in *interp) runEffect(e *env, eff *ast.EffectStage, cur *value.Variable, pos ast.Pos) error {
	v := cur
	if eff.Value != nil {
		var err error
		v, err = in.evalExpr(e, eff.Value)
		if err != nil {
			return atPos(err, KindEffect, pos)
		}
	}
	op := &hooks.OperationContext{Type: eff.Kind, Subtype: "effect", Location: location(pos)}
	var payload *value.Variable
	_, err := in.hookedWith(e, &effectNode{pos: pos}, op, []*value.Variable{v}, &guardCall{effect: true, opts: guard.Options{Effect: true}},
		func(ins []*value.Variable) (*value.Variable, error) {
			payload = ins[0]
			return payload, nil
		})
	if err != nil {
		return err
	}
	switch eff.Kind {
	case "show":
		in.out.both(withNewline(in.displayText(payload)))
	case "log":
		in.out.writeStderr(withNewline(value.Text(payload.Data)))
	case "output", "append":
		t := ast.OutputTarget{Stream: "stdout"}
		if eff.Target != nil {
			t = *eff.Target
		}
		return in.writeTarget(e, payload, t, eff.Kind == "append", pos)
	}
	return nil
}

// effectNode positions an inline effect for hooks and errors.
type effectNode struct{ pos ast.Pos }

// Position implements ast.Node.
func (n *effectNode) Position() ast.Pos { return n.pos }
