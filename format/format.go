package format

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/guardrun/guardrun/ast"
	"github.com/guardrun/guardrun/grammar"
)

// Result is a formatted file with what the formatter could not reprint.
type Result struct {
	// Text is the formatted source.
	Text []byte
	// Kept counts the directives left exactly as written, because they
	// hold a comment or because their reprint did not parse back to the
	// same tree.
	Kept int
}

// ErrMeaningChanged reports a formatter bug caught by the final check:
// the formatted file does not parse to the original tree. The caller
// must keep the original file.
var ErrMeaningChanged = errors.New("formatting would change the syntax tree")

// Source formats src, the contents of file, read in mode. A parse error
// is returned as is (a positioned *grammar.Error).
func Source(file string, src []byte, mode ast.Mode) (*Result, error) {
	doc, err := grammar.Parse(file, src, mode)
	if err != nil {
		return nil, err
	}
	text := string(src)
	f := &formatter{src: text, mode: mode}
	prev := frontmatterEnd(text, doc)
	f.out.WriteString(text[:prev])
	leading := true
	for _, n := range doc.Body {
		end, ok := doc.Ends[n]
		if !ok {
			continue // prose, kept through the gaps
		}
		start := n.Position().Offset
		if start < prev {
			continue
		}
		f.gap(text[prev:start], leading)
		leading = false
		f.directive(n.(ast.Directive), text[start:end])
		prev = end
	}
	f.tail(text[prev:], leading)
	out := []byte(f.out.String())
	again, err := grammar.Parse(file, out, mode)
	if err != nil || !SameTree(doc, again) {
		return nil, fmt.Errorf("%s: %w", file, ErrMeaningChanged)
	}
	return &Result{Text: out, Kept: f.kept}, nil
}

// frontmatterEnd is where the body starts after a leading --- block.
func frontmatterEnd(text string, doc *ast.Document) int {
	if doc.Frontmatter == "" && !strings.HasPrefix(text, "---\n---") {
		return 0
	}
	open := strings.IndexByte(text, '\n') + 1
	closeLine := open + len(doc.Frontmatter)
	if i := strings.IndexByte(text[closeLine:], '\n'); i >= 0 {
		return closeLine + i + 1
	}
	return len(text)
}

type formatter struct {
	src  string
	mode ast.Mode
	out  strings.Builder
	kept int
	// blank is set when a strict file had a blank line since the last
	// line written.
	blank bool
	// started is set once a strict file's body has a line.
	started bool
}

// gap writes the text between two directives (leading: before the
// first one). Markdown keeps it as is
// (it is prose); a strict file has only blank and comment lines there,
// which lose their indentation and trailing blanks, with at most one
// blank line in a row and none at the start or the end.
func (f *formatter) gap(text string, leading bool) {
	if f.mode == ast.Markdown {
		f.out.WriteString(text)
		return
	}
	if leading {
		text = "\n" + text
	}
	lines := strings.Split(text, "\n")
	// lines[0] is the rest of the previous directive's line.
	if rest := strings.TrimSpace(lines[0]); rest != "" && f.started {
		f.out.WriteString(" " + rest)
	}
	for i, line := range lines[1:] {
		line = strings.TrimSpace(line)
		if line == "" {
			// The last piece is the indentation of the next line, not a
			// line of its own.
			f.blank = f.blank || i < len(lines)-2
			continue
		}
		f.line(line)
	}
}

// line starts a new line of a strict file with text.
func (f *formatter) line(text string) {
	if f.started {
		f.out.WriteString("\n")
		if f.blank {
			f.out.WriteString("\n")
		}
	}
	f.blank, f.started = false, true
	f.out.WriteString(text)
}

// tail writes what follows the last directive: verbatim in markdown, one
// final newline in a strict file.
func (f *formatter) tail(text string, leading bool) {
	f.gap(text, leading)
	if f.mode == ast.Strict && f.started {
		f.out.WriteString("\n")
	}
}

// directive writes one top-level directive, reprinted when the reprint
// parses back to the same tree and as written otherwise.
func (f *formatter) directive(d ast.Directive, orig string) {
	if f.mode == ast.Markdown && !strings.HasPrefix(orig, "/") {
		// An effect line in prose (`@x | log`): prose-like, keep it.
		f.out.WriteString(orig)
		return
	}
	var comments map[int][]string
	want := 0
	ok := true
	if hasComment(orig) {
		comments, want, ok = leadingComments(d, orig, d.Position().Offset)
	}
	if ok {
		if text, ok := printDirective(d, f.mode, comments, want); ok && sameLineEnd(text, orig, f.mode) {
			f.write(text)
			return
		}
	}
	f.kept++
	if f.mode == ast.Strict {
		orig = strings.TrimRight(orig, " \t\r")
	}
	f.write(orig)
}

// sameLineEnd reports whether a directive printed as text ends its line
// as it did written as orig: followed by a newline, each parses to as
// many nodes (the printed form of a bare call, `/@show()`, leaves its
// newline as prose where `/show()` takes it).
func sameLineEnd(text, orig string, mode ast.Mode) bool {
	a, err := grammar.Parse("", []byte(text+"\n"), mode)
	if err != nil {
		return false
	}
	b, err := grammar.Parse("", []byte(orig+"\n"), mode)
	return err == nil && len(a.Body) == len(b.Body)
}

func (f *formatter) write(text string) {
	if f.mode == ast.Strict {
		f.line(text)
		return
	}
	f.out.WriteString(text)
}

// hasComment reports whether a directive's text may hold a comment (or
// `>>` inside a string, which leadingComments then tells apart).
func hasComment(text string) bool {
	return strings.Contains(text, ">>") || strings.Contains(text, "<<")
}

// Directive prints one directive in canonical layout, with a leading
// slash in markdown mode, and reports whether the text parses back to
// the same tree.
func Directive(d ast.Directive, mode ast.Mode) (string, bool) {
	return printDirective(d, mode, nil, 0)
}

// printDirective is Directive with comment lines to place (keyed by the
// file offset of the node they precede); it fails unless all want of
// them find their node.
func printDirective(d ast.Directive, mode ast.Mode, comments map[int][]string, want int) (string, bool) {
	p := &printer{comments: comments}
	text := p.directive(d)
	if c := comments[trailingKey]; len(c) == 1 && !strings.Contains(text, "\n") {
		text += "  " + c[0]
		p.placed++
	}
	if p.failed || p.placed != want {
		return "", false
	}
	if mode == ast.Markdown {
		text = "/" + text
	}
	doc, err := grammar.Parse("", []byte(text+"\n"), mode)
	if err != nil || len(doc.Body) == 0 || !sameNode(d, doc.Body[0]) {
		return "", false
	}
	for _, n := range doc.Body[1:] {
		if _, prose := n.(*ast.Prose); !prose {
			return "", false
		}
	}
	return text, true
}

// ModeFor returns the mode a file name implies: `.mld` and `.guard` (an
// agent policy, which the hook reads strict) are strict, anything else
// markdown (as guardrun.ModeForName).
func ModeFor(name string) ast.Mode {
	switch filepath.Ext(name) {
	case ".mld", ".guard":
		return ast.Strict
	}
	return ast.Markdown
}
