package format

import (
	"sort"
	"strings"

	"github.com/guardrun/guardrun/ast"
)

// The lexer drops comments inside a directive, so the tree does not hold
// them. A comment on a line of its own right before a when arm or a block
// statement is put back before that arm or statement (the common case:
// a guard rule with a note above it); the directive is kept as written
// when it has any other comment.

// trailingKey holds, in leadingComments' map, the comment that ends a
// one-line directive.
const trailingKey = -1

// leadingComments finds the comments in a directive's text (orig, which
// starts at offset base in the file) and maps each to the file offset of
// the token after it. ok is false when a comment is not on a line of its
// own.
func leadingComments(d ast.Directive, orig string, base int) (before map[int][]string, n int, ok bool) {
	skip := literalSpans(d, orig, base)
	before = map[int][]string{}
	var pending []string
	for i := 0; i < len(orig); i++ {
		if j := sort.Search(len(skip), func(k int) bool { return skip[k][1] > i }); j < len(skip) && skip[j][0] <= i {
			i = skip[j][1] - 1
			continue
		}
		c := orig[i]
		if c == ' ' || c == '\t' || c == '\r' || c == '\n' {
			continue
		}
		if strings.HasPrefix(orig[i:], ">>") || strings.HasPrefix(orig[i:], "<<") {
			lineStart := strings.LastIndexByte(orig[:i], '\n') + 1
			end := strings.IndexByte(orig[i:], '\n')
			if end < 0 {
				end = len(orig) - i
			}
			if strings.TrimSpace(orig[lineStart:i]) != "" {
				if lineStart == 0 && i+end == len(orig) {
					// The one line's trailing comment.
					before[trailingKey] = []string{strings.TrimRight(orig[i:], " \t\r")}
					n++
					i = len(orig)
					continue
				}
				return nil, 0, false // a trailing comment inside
			}
			pending = append(pending, strings.TrimRight(orig[i:i+end], " \t\r"))
			n++
			i += end
			continue
		}
		if len(pending) > 0 {
			before[base+i] = pending
			pending = nil
		}
	}
	if len(pending) > 0 {
		return nil, 0, false // a comment at the end of the directive
	}
	return before, n, true
}

// literalSpans are the [start, end) offsets, relative to orig, of the
// directive's string literals and code bodies, in which `>>` is text.
func literalSpans(d ast.Directive, orig string, base int) [][2]int {
	var spans [][2]int
	find := func(from int, text string) {
		if text == "" {
			return
		}
		rel := max(from-base, 0)
		if rel > len(orig) {
			return
		}
		if k := strings.Index(orig[rel:], text); k >= 0 {
			spans = append(spans, [2]int{rel + k, rel + k + len(text)})
		}
	}
	ast.Inspect(d, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.StringLit:
			find(n.Pos.Offset, n.Raw)
			return false
		case *ast.CodeExpr:
			find(n.Pos.Offset, n.Code)
			return false
		case *ast.FileLoad:
			if n.Path != nil {
				find(n.Pos.Offset, n.Path.Raw)
			}
			return false
		}
		return true
	})
	sort.Slice(spans, func(i, j int) bool { return spans[i][0] < spans[j][0] })
	return spans
}
