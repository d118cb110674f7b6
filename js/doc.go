// Package js is guardrun's JavaScript engine: it runs `js {…}` and
// `node {…}` blocks, and the functions of JS shadow environments, in an
// embedded goja runtime (no real Node.js), with the time, output and
// memory limits of interp/code and guards against runaway regular
// expressions and single huge allocations.
//
// Importing the package registers the engine with interp/code
// (code.RegisterJS), as an image decoder registers with image:
//
//	import _ "github.com/guardrun/guardrun/js"
//
// A program that does not import it links no goja (nor the pprof,
// regexp2 and x/text packages goja pulls in) and pays none of their
// start-up cost; a script that needs JavaScript then fails with a
// positioned error naming this import. The guardrun command imports it;
// guardrun-hook does not, and hands policies that need it to guardrun.
//
// js owns the JavaScript runtime only. It may import interp/code and
// interp/value; it must not import interp or anything above it.
package js

import "github.com/guardrun/guardrun/interp/code"

func init() { code.RegisterJS(newRunner) }
