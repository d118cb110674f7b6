package interp

import "github.com/guardrun/guardrun/ast"

// topLevelReturn runs the document-level statements that can return
// (mlld's script return): `=> value`, and an if whose block returns. The
// value is shown and the rest of the document does not run. ran reports
// whether d was one of them (and so has run); stop whether it returned.
func (in *interp) topLevelReturn(e *env, d ast.Directive) (ran, stop bool, err error) {
	switch d := d.(type) {
	case *ast.ReturnStmt:
		_, err := in.execStatement(e, d)
		return true, err == nil, err
	case *ast.IfDirective:
		v, returned, err := in.execIf(e, d)
		if err != nil || !returned {
			return true, false, err
		}
		if err := retryOutsidePipeline(v, d.Pos); err != nil {
			return true, false, err
		}
		if !isSkip(v) && !isLoopCtl(v) {
			in.out.both(withNewline(in.displayText(v)))
		}
		return true, true, nil
	}
	return false, false, nil
}
