package interp

import (
	"fmt"
	"io"
	"regexp"
	"strings"
	"sync"

	"github.com/guardrun/guardrun/interp/value"
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
	// live streams the document as it is produced (may be nil).
	live docStream
	// muted is >0 while an imported module runs: its document output is
	// not part of the importer's document.
	muted int
	// used counts the bytes collected in doc, stdout and stderr; past
	// limit (the run's budget.outputCap) the run stops.
	used, limit int64
}

// reset empties o for another evaluation (a Machine's decisions), keeping
// its limit.
func (o *output) reset() {
	o.doc.Reset()
	o.stdout.Reset()
	o.stderr.Reset()
	o.breaks, o.muted, o.used = 0, 0, 0
}

// take accounts for n more collected bytes. The writers have no error to
// return; the run recovers the LimitError at the directive being run.
func (o *output) take(n int) {
	if err := o.reserve(n); err != nil {
		panic(err)
	}
}

// reserve accounts for n more collected bytes, or returns the LimitError
// when they do not fit.
func (o *output) reserve(n int) *value.LimitError {
	if o.limit > 0 && o.used+int64(n) > o.limit {
		return &value.LimitError{
			Message: fmt.Sprintf("memory limit exceeded: the run's output (document, stdout and stderr) would pass %s", value.FormatBytes(o.limit)),
			Hint:    limitHint,
		}
	}
	o.used += int64(n)
	return nil
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
	o.writeDoc(strings.Repeat("\n", n))
}

// writeDoc appends to the document and streams it.
func (o *output) writeDoc(s string) {
	o.take(len(s))
	o.doc.WriteString(s)
	o.live.write(s)
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
	o.writeDoc(s)
}

// both emits to the document and stdout (show, run).
func (o *output) both(s string) {
	if o.muted > 0 {
		return
	}
	o.flushBreaks()
	o.writeDoc(s)
	o.take(len(s))
	o.stdout.WriteString(s)
}

// writeStdout emits to stdout only (output … to stdout). Only these reach
// the live writer: shown text is already in the document, and a caller that
// prints the document would otherwise print it twice.
func (o *output) writeStdout(s string) {
	o.take(len(s))
	o.stdout.WriteString(s)
	if o.outW != nil {
		o.live.flush()
		_, _ = io.WriteString(o.outW, s)
	}
}

func (o *output) writeStderr(s string) {
	o.take(len(s))
	o.writeStderrTaken(s)
}

// writeStderrTaken is writeStderr for text already accounted for.
func (o *output) writeStderrTaken(s string) {
	o.stderr.WriteString(s)
	if o.errW != nil {
		_, _ = io.WriteString(o.errW, s)
	}
}

var manyNewlines = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\n{3,}`) })

// document is the assembled document with trailing breaks flushed and
// newline runs of three or more collapsed to one blank line.
func (o *output) document() string {
	o.flushBreaks()
	return manyNewlines().ReplaceAllString(o.doc.String(), "\n\n")
}

// withNewline appends "\n" unless s already ends with one.
func withNewline(s string) string {
	if strings.HasSuffix(s, "\n") {
		return s
	}
	return s + "\n"
}

// docStream writes the document to a live writer in its final form as it
// is produced: runs of three or more newlines become one blank line, like
// the assembled document, leading newlines are dropped, and newlines are
// held back until more content follows, so the stream ends in exactly one
// newline once finish is called. Output that shares the writer (stdout-only
// effects) first calls flush, so lines keep their order and separation.
type docStream struct {
	w       io.Writer
	started bool
	pending int
	lastNL  bool
}

func (d *docStream) write(s string) {
	if d.w == nil || s == "" {
		return
	}
	var b strings.Builder
	for s != "" {
		text := strings.TrimLeft(s, "\n")
		d.pending += len(s) - len(text)
		if text == "" {
			break
		}
		if d.started && d.pending > 0 {
			b.WriteString(strings.Repeat("\n", min(d.pending, 2)))
		}
		d.pending = 0
		d.started = true
		end := strings.IndexByte(text, '\n')
		if end < 0 {
			end = len(text)
		}
		b.WriteString(text[:end])
		s = text[end:]
	}
	d.emit(b.String())
}

// flush writes the newlines held back so far.
func (d *docStream) flush() {
	if d.w != nil && d.started && d.pending > 0 {
		d.emit(strings.Repeat("\n", min(d.pending, 2)))
		d.pending = 0
	}
}

// finish ends the stream with a newline if anything was written.
func (d *docStream) finish() {
	if d.w != nil && d.started && !d.lastNL {
		d.emit("\n")
	}
}

func (d *docStream) emit(s string) {
	if s == "" {
		return
	}
	d.lastNL = s[len(s)-1] == '\n'
	_, _ = io.WriteString(d.w, s)
}
