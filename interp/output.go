package interp

import (
	"io"
	"regexp"
	"strings"
)

// output assembles the document and the stdout/stderr streams from the
// effects a run emits (SPEC §1.2).
type output struct {
	doc    strings.Builder
	stdout strings.Builder
	stderr strings.Builder
	// breaks counts collapsible newlines waiting for real content: prose
	// chunks made only of newlines never add more than one blank line.
	breaks int
	outW   io.Writer
	errW   io.Writer
	// muted is >0 while an imported module runs: its document output is
	// not part of the importer's document.
	muted int
}

func (o *output) flushBreaks() {
	if o.breaks == 0 {
		return
	}
	n := o.breaks
	if n > 2 {
		n = 2
	}
	o.breaks = 0
	o.doc.WriteString(strings.Repeat("\n", n))
}

// prose emits markdown text verbatim, or collapsible breaks for a chunk
// of newlines only.
func (o *output) prose(s string) {
	if o.muted > 0 || s == "" {
		return
	}
	if strings.Trim(s, "\n") == "" {
		o.breaks += len(s)
		return
	}
	o.flushBreaks()
	o.doc.WriteString(s)
}

// both emits to the document and stdout (show, run).
func (o *output) both(s string) {
	if o.muted > 0 {
		return
	}
	o.flushBreaks()
	o.doc.WriteString(s)
	o.stdout.WriteString(s)
}

// writeStdout emits to stdout only (output … to stdout). Only these reach
// the live writer: shown text is already in the document, and a caller that
// prints the document would otherwise print it twice.
func (o *output) writeStdout(s string) {
	o.stdout.WriteString(s)
	if o.outW != nil {
		_, _ = io.WriteString(o.outW, s)
	}
}

func (o *output) writeStderr(s string) {
	o.stderr.WriteString(s)
	if o.errW != nil {
		_, _ = io.WriteString(o.errW, s)
	}
}

var manyNewlines = regexp.MustCompile(`\n{3,}`)

// document is the assembled document with trailing breaks flushed and
// newline runs of three or more collapsed to one blank line.
func (o *output) document() string {
	o.flushBreaks()
	return manyNewlines.ReplaceAllString(o.doc.String(), "\n\n")
}

// withNewline appends "\n" unless s already ends with one.
func withNewline(s string) string {
	if strings.HasSuffix(s, "\n") {
		return s
	}
	return s + "\n"
}
