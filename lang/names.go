package lang

import "slices"

// Transformers are the builtin transformers: pipeline stages and
// functions (`@json`, `@parse.loose`, `@upper(x)`).
var Transformers = []string{"json", "JSON", "parse", "trim", "upper", "lower", "pretty", "sort", "xml", "csv", "md"}

// Functions are the builtin functions that are not transformers:
// `@typeof`, `@exists` (builtins.go) and the workspace builtins
// (builtins_workspace.go).
var Functions = []string{"typeof", "exists", "fileExists", "keep", "keepStructured", "sha256", "readWorkspaceFile", "pathMatches"}

// Builtins are every builtin reachable as `@name` without a declaration:
// the transformers and the functions.
func Builtins() []string { return append(slices.Clone(Transformers), Functions...) }

// IsBuiltin reports whether name is a builtin reachable as `@name`.
func IsBuiltin(name string) bool {
	return slices.Contains(Transformers, name) || slices.Contains(Functions, name)
}

// ReservedHelpers are the guard helpers no script can bind: a binding
// would let a script forge what a guard decides with.
var ReservedHelpers = []string{"opIs", "opHas", "opHasAny", "opHasAll", "inputHas"}

// GuardHelpers are the helpers bound inside guard bodies: the reserved
// ones, and @prefixWith and @tagValue, which a script may define (inside
// guards @prefixWith is always the builtin; a @tagValue of the guard's
// own module wins).
var GuardHelpers = []string{"opIs", "opHas", "opHasAny", "opHasAll", "inputHas", "prefixWith", "tagValue"}

// Ambient are the names that exist in some contexts without a
// declaration: `@mx` everywhere, `@p`/`@pipeline` in pipelines, `@fm` in
// a file with frontmatter, `@input`/`@output` in guards and stages.
var Ambient = []string{"mx", "p", "pipeline", "fm", "input", "output"}

// PolicyHelpers are the builtins of policy composition.
var PolicyHelpers = []string{"union"}

// MxFields are the fields of the ambient `@mx`, in guards, exes,
// pipelines, hook bodies and agent decisions.
var MxFields = []string{"op", "operation", "labels", "taint", "sources", "args", "guard",
	"try", "hint", "input", "errors", "isPipeline", "lastOutput",
	"pipe", "policy", "stage", "tools", "hooks", "session", "denied"}

// ValueMxShown are the fields of a value's `.mx` object, in the order
// `show @x.mx` prints them: "tokens" is a real count of `.mx.text`,
// "tokest" mlld's length-based estimate.
var ValueMxShown = []string{"labels", "taint", "sources", "text", "data", "type", "tokens", "tokest", "length"}

// ValueMxFields are every field a value's `.mx` can have: the shown
// ones, an object's `keys`/`values`/`entries`, the exes it came through
// (`tools`), where an agent call's argument was seen (`seenIn`) and the
// identifiers in it only untrusted text held (`foreign`), and a loaded
// file's metadata (FileMxFields).
var ValueMxFields = []string{"labels", "taint", "sources", "text", "data", "type", "tokens", "tokest", "length",
	"keys", "values", "entries", "tools", "seenIn", "foreign",
	"filename", "relative", "absolute", "path", "dirname", "relativeDir", "absoluteDir", "ext", "fm"}

// FileMxFields are the `.mx` fields of a loaded file (and of each file
// of a glob), beside the text and its type.
var FileMxFields = []string{"filename", "relative", "absolute", "path", "dirname", "relativeDir", "absoluteDir", "ext", "fm"}

// InputQuantifiers are the quantifiers of a per-operation guard's
// `@input` (the list of the operation's inputs): `@input.any.mx.labels…`.
var InputQuantifiers = []string{"any", "all", "none"}

// InputListFields are every field of a per-operation guard's `@input`:
// the quantifiers, the inputs' merged `.mx` and `.length`.
var InputListFields = []string{"any", "all", "none", "mx", "length"}

// OpFields are the fields of `@mx.op`.
var OpFields = []string{"type", "subtype", "name", "labels", "opLabels", "command", "target", "metadata", "effects"}

// GuardFields are the fields of `@mx.guard` (`rule` in a denied handler
// when a policy rule denied).
var GuardFields = []string{"name", "try", "attempt", "tries", "max", "hintHistory", "timing", "input",
	"output", "labels", "taint", "sources", "trace", "hints", "reasons", "reason", "filter", "args",
	"decision", "rule"}
