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
	// cols holds, per line, the checkpoints that make a column lookup on a
	// long line cost O(log n) instead of a rune count from the line start
	// (which made parsing a long one-line expression quadratic). Built
	// lazily: most lines are short and never need one.
	cols map[int]*lineCols
}

// lineCols maps byte offsets on one line to rune columns. ascii lines
// need no table: the column is the byte distance.
type lineCols struct {
	ascii bool
	// offs[i] is a rune boundary (absolute byte offset) and runes[i] the
	// number of runes between the line start and it.
	offs  []int
	runes []int
}

// shortLine is the length up to which counting runes from the line start
// is cheaper than building and searching a checkpoint table.
const shortLine = 256

// colStride is the byte distance between checkpoints on a long line.
const colStride = 64

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
	return ast.Pos{File: s.file, Line: line + 1, Col: s.col(line, off) + 1, Offset: off}
}

// col is the number of runes between the start of line and off.
func (s *source) col(line, off int) int {
	start := s.lineStarts[line]
	end := len(s.text)
	if line+1 < len(s.lineStarts) {
		end = s.lineStarts[line+1]
	}
	if end-start <= shortLine {
		return utf8.RuneCountInString(s.text[start:off])
	}
	lc := s.cols[line]
	if lc == nil {
		lc = buildLineCols(s.text, start, end)
		if s.cols == nil {
			s.cols = map[int]*lineCols{}
		}
		s.cols[line] = lc
	}
	if lc.ascii {
		return off - start
	}
	i := sort.Search(len(lc.offs), func(i int) bool { return lc.offs[i] > off }) - 1
	// Counting from a rune boundary found by decoding from the line start
	// steps through invalid bytes exactly as counting from the start does.
	return lc.runes[i] + utf8.RuneCountInString(s.text[lc.offs[i]:off])
}

func buildLineCols(text string, start, end int) *lineCols {
	ascii := true
	for i := start; i < end; i++ {
		if text[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return &lineCols{ascii: true}
	}
	lc := &lineCols{offs: []int{start}, runes: []int{0}}
	n, next := 0, start+colStride
	for i := start; i < end; {
		if i >= next {
			lc.offs = append(lc.offs, i)
			lc.runes = append(lc.runes, n)
			next = i + colStride
		}
		_, size := utf8.DecodeRuneInString(text[i:end])
		i += size
		n++
	}
	return lc
}
