package interp

import (
	"crypto/sha256"
	"encoding/hex"

	"github.com/guardrun/guardrun/ast"
	"github.com/guardrun/guardrun/interp/value"
)

// The workspace builtins agent rules need (stale-write protection):
// @sha256(text) is the hex SHA-256 of a value's text, and
// @readWorkspaceFile(path) a file's content, confined to the base
// directory like every other file access (`<file>`, @exists, output).
func init() {
	builtinNames["sha256"] = true
	builtinNames["readWorkspaceFile"] = true
}

// callWorkspaceBuiltin calls @sha256 or @readWorkspaceFile; ok is false
// for any other name.
func (in *interp) callWorkspaceBuiltin(e *env, name string, args []*value.Variable, pos ast.Pos) (*value.Variable, bool, error) {
	switch name {
	case "sha256":
		if len(args) != 1 {
			return nil, true, newError(KindType, pos, "call it as @sha256(text)", "@sha256 takes one argument, got %d", len(args))
		}
		sum := sha256.Sum256([]byte(value.Text(args[0].Data)))
		// A digest reveals nothing of the text but still derives from it:
		// it keeps the argument's labels, as every transformer does.
		return derived(hex.EncodeToString(sum[:]), args[0]), true, nil
	case "readWorkspaceFile":
		if len(args) != 1 {
			return nil, true, newError(KindType, pos, "call it as @readWorkspaceFile(path)", "@readWorkspaceFile takes one argument, got %d", len(args))
		}
		path := value.Text(args[0].Data)
		b, abs, err := in.files.read(e.mod.dir, path, pos)
		if err != nil {
			return nil, true, err
		}
		d, err := in.files.provenance(abs, path, b, pos)
		if err != nil {
			return nil, true, err
		}
		v := derived(string(b), args[0])
		v.Security = v.Security.Merge(d)
		return v, true, nil
	}
	return nil, false, nil
}
