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
	if doc := c.Load(file, src, mode); doc != nil {
		return doc, nil
	}
	doc, err := grammar.Parse(file, src, mode)
	if err == nil && doc != nil {
		c.Store(file, src, mode, doc)
	}
	return doc, err
}
