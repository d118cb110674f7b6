package grammar

import (
	"sort"
	"unicode/utf8"

	"github.com/guardrun/guardrun/ast"
)

// source is the original file with a line index, so that positions of
// separately parsed spans map back to file:line:col.
type source struct {
	file       string
	text       string
	lineStarts []int
}

func newSource(file, text string) *source {
	starts := []int{0}
	for i := 0; i < len(text); i++ {
		if text[i] == '\n' {
			starts = append(starts, i+1)
		}
	}
	return &source{file: file, text: text, lineStarts: starts}
}

// posAt converts a byte offset into a position; columns count runes.
func (s *source) posAt(off int) ast.Pos {
	if off < 0 {
		off = 0
	}
	if off > len(s.text) {
		off = len(s.text)
	}
	line := sort.Search(len(s.lineStarts), func(i int) bool { return s.lineStarts[i] > off }) - 1
	start := s.lineStarts[line]
	return ast.Pos{File: s.file, Line: line + 1, Col: utf8.RuneCountInString(s.text[start:off]) + 1, Offset: off}
}
