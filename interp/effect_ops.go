package interp

import (
	"github.com/guardrun/guardrun/ast"
	"github.com/guardrun/guardrun/interp/guard"
	"github.com/guardrun/guardrun/interp/hooks"
	"github.com/guardrun/guardrun/interp/value"
)

// execEffect runs `output`/`append` as a hooked operation whose input is
// the payload (SPEC §5.5; subtypes from §10 P16). A nil value expression
// means the document so far.
func (in *interp) execEffect(e *env, d ast.Directive, x ast.Expr, t ast.OutputTarget, appendMode bool) error {
	pos := d.Position()
	var v *value.Variable
	if x == nil {
		v = value.New(in.out.document())
	} else {
		var err error
		v, err = in.evalExpr(e, x)
		if err != nil {
			return atPos(err, KindEffect, pos)
		}
	}
	op := &hooks.OperationContext{Type: "output", Subtype: "outputFile", Location: location(pos)}
	if appendMode {
		op.Type, op.Subtype = "append", "appendFile"
	}
	if t.Stream != "" {
		op.Subtype, op.Target = "outputStream", t.Stream
	} else if s, ok := t.Path.(*ast.StringLit); ok && isPlainText(s) {
		op.Target = s.Parts[0].(*ast.TextPart).Text
	}
	if r, ok := x.(*ast.Ref); ok {
		op.Name = r.Name
	}
	var payload *value.Variable
	_, err := in.hookedWith(e, d, op, []*value.Variable{v}, &guardCall{effect: true, opts: guard.Options{Effect: true}}, func(inputs []*value.Variable) (*value.Variable, error) {
		payload = inputs[0]
		return payload, nil
	})
	if err != nil {
		return err
	}
	// Written only once the after-guards passed too.
	return in.writeTarget(e, payload, t, appendMode, pos)
}

// isPlainText reports whether a string literal has no interpolation.
func isPlainText(s *ast.StringLit) bool {
	if len(s.Parts) != 1 {
		return false
	}
	_, ok := s.Parts[0].(*ast.TextPart)
	return ok
}

// execLog runs `log` as a hooked operation (type log, subtype
// outputStream) whose input is the logged value.
func (in *interp) execLog(e *env, d *ast.LogDirective) error {
	v, err := in.evalExpr(e, d.Value)
	if err != nil {
		return atPos(err, KindUnexpected, d.Pos)
	}
	op := &hooks.OperationContext{Type: "log", Subtype: "outputStream", Target: "stderr", Location: location(d.Pos)}
	if r, ok := d.Value.(*ast.Ref); ok {
		op.Name = r.Name
	}
	var payload *value.Variable
	_, err = in.hookedWith(e, d, op, []*value.Variable{v}, &guardCall{effect: true, opts: guard.Options{Effect: true}}, func(inputs []*value.Variable) (*value.Variable, error) {
		payload = inputs[0]
		return payload, nil
	})
	if err != nil {
		return err
	}
	in.out.writeStderr(withNewline(value.Text(payload.Data)))
	return nil
}

// execBail is `bail [message]` (mlld's bail): the run stops with an error
// whose message is the given text, or mlld's default.
func (in *interp) execBail(e *env, d *ast.BailDirective) error {
	msg := "Script terminated by bail directive."
	if d.Message != nil {
		v, err := in.evalExpr(e, d.Message)
		if err != nil {
			return atPos(err, KindUnexpected, d.Pos)
		}
		if t := value.Text(v.Data); t != "" {
			msg = t
		}
	}
	return newError(KindBail, d.Pos, "the script stopped itself with bail", "%s", msg)
}
