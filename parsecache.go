package guardrun

import (
	"sync/atomic"

	"github.com/guardrun/guardrun/ast"
	"github.com/guardrun/guardrun/grammar"
)

// ParseCache keeps parsed documents across processes. A command that
// lives for one decision (`guardrun hook`) parses the same policy files
// on every call; with a cache it loads their syntax trees instead.
type ParseCache interface {
	// Load returns the document parsed from exactly this file, source and
	// mode, or nil.
	Load(file string, src []byte, mode ast.Mode) *ast.Document
	// Store keeps a document the parser produced.
	Store(file string, src []byte, mode ast.Mode, doc *ast.Document)
}

// SourceChecker is implemented by a ParseCache that also vets sources:
// before a source is looked up or parsed (the script of Compile and every
// module an import loads), CheckSource gets the file name and the exact
// bytes that would be parsed and run, and its error refuses them (Compile
// or the import fails with it). A hook pins policies this way: what is
// hashed is what runs.
type SourceChecker interface {
	CheckSource(file string, src []byte) error
}

var parseCache atomic.Pointer[ParseCache]

// SetParseCache makes every later Compile and import of this process
// consult c (nil: none). It is process-wide: a command sets it once at
// start.
func SetParseCache(c ParseCache) {
	if c == nil {
		parseCache.Store(nil)
		return
	}
	parseCache.Store(&c)
}

// parse is grammar.Parse through the parse cache, if one is set.
func parse(file string, src []byte, mode ast.Mode) (*ast.Document, error) {
	p := parseCache.Load()
	if p == nil {
		return grammar.Parse(file, src, mode)
	}
	c := *p
	if sc, ok := c.(SourceChecker); ok {
		if err := sc.CheckSource(file, src); err != nil {
			return nil, err
		}
	}
	if doc := c.Load(file, src, mode); doc != nil {
		return doc, nil
	}
	doc, err := grammar.Parse(file, src, mode)
	if err == nil && doc != nil {
		c.Store(file, src, mode, doc)
	}
	return doc, err
}
