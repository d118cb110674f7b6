package astcodec

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/guardrun/guardrun/ast"
)

//go:generate go run ../astgen

// Format is the first bytes of every encoding: a magic and the format
// version. A change of the layout or of the generated type numbering
// changes the version, so older entries are refused instead of misread.
const Format = "gra\x01"

// MaxDepth bounds the nesting of pointers and interfaces in a tree. The
// parser's own limits keep real trees far below it; it exists so that
// hostile bytes cannot recurse the decoder off its stack.
const MaxDepth = 10000

var errCorrupt = errors.New("astcodec: corrupt encoding")

// Encode returns doc's encoding. It fails for trees it cannot represent
// exactly (Ends keyed by a node outside Body, nesting beyond MaxDepth).
func Encode(doc *ast.Document) ([]byte, error) {
	if doc == nil {
		return nil, errors.New("astcodec: nil document")
	}
	e := &encoder{strs: map[string]uint64{"": 0}, table: []string{""}}
	encPtrDocument(e, doc)
	if e.err != nil {
		return nil, e.err
	}
	out := make([]byte, 0, len(Format)+2*nSlabs+len(e.buf)+64)
	out = append(out, Format...)
	for _, n := range e.count {
		out = binary.AppendUvarint(out, n)
	}
	// The table leaves out "", which is index 0 without being stored.
	out = binary.AppendUvarint(out, uint64(len(e.table)-1))
	for _, s := range e.table[1:] {
		out = binary.AppendUvarint(out, uint64(len(s)))
		out = append(out, s...)
	}
	return append(out, e.buf...), nil
}

// Decode returns the document b encodes, or an error when b is not an
// encoding Encode made (truncated, corrupt, another format version).
func Decode(b []byte) (*ast.Document, error) {
	if len(b) < len(Format) || string(b[:len(Format)]) != Format {
		return nil, errors.New("astcodec: not an encoding of this format")
	}
	d := &decoder{b: b, i: len(Format)}
	var counts [nSlabs]uint64
	for i := range counts {
		counts[i] = d.uint()
	}
	d.readTable()
	if d.err != nil {
		return nil, d.err
	}
	// Each counted element takes at least slabMin bytes of what is left,
	// so the slabs allocated below are bounded by the input's size.
	rest := uint64(len(d.b) - d.i)
	var need uint64
	for i, n := range counts {
		if n > rest {
			return nil, errCorrupt
		}
		need += n * slabMin[i]
		if need > rest {
			return nil, errCorrupt
		}
	}
	d.s.make(&counts)
	doc := decPtrDocument(d)
	if d.err == nil && (doc == nil || d.i != len(d.b) || !d.s.used()) {
		d.err = errCorrupt
	}
	if d.err != nil {
		return nil, d.err
	}
	return doc, nil
}

type encoder struct {
	buf   []byte
	strs  map[string]uint64
	table []string
	count [nSlabs]uint64
	depth int
	err   error
}

func (e *encoder) fail(err error) {
	if e.err == nil {
		e.err = err
	}
}

func (e *encoder) uint(u uint64) { e.buf = binary.AppendUvarint(e.buf, u) }
func (e *encoder) int(i int)     { e.buf = binary.AppendVarint(e.buf, int64(i)) }

func (e *encoder) bool(b bool) {
	if b {
		e.buf = append(e.buf, 1)
	} else {
		e.buf = append(e.buf, 0)
	}
}

// float keeps the bits, so NaN payloads and -0 survive.
func (e *encoder) float(f float64) {
	e.buf = binary.LittleEndian.AppendUint64(e.buf, math.Float64bits(f))
}

// str writes s as an index into the string table: file names, operators
// and names recur throughout a tree.
func (e *encoder) str(s string) {
	i, ok := e.strs[s]
	if !ok {
		i = uint64(len(e.table))
		e.strs[s] = i
		e.table = append(e.table, s)
	}
	e.uint(i)
}

func (e *encoder) enter() bool {
	e.depth++
	if e.depth > MaxDepth {
		e.fail(fmt.Errorf("astcodec: tree nests deeper than %d", MaxDepth))
		return false
	}
	return true
}

func (e *encoder) leave() { e.depth-- }

// encEnds writes Document.Ends by position in Body: a map keyed by node
// pointers means nothing outside the process.
func encEnds(e *encoder, v *ast.Document) {
	if v.Ends == nil {
		e.uint(0)
		return
	}
	e.uint(1)
	found := 0
	for _, n := range v.Body {
		end, ok := v.Ends[n]
		if !ok {
			e.uint(0)
			continue
		}
		found++
		e.uint(1)
		e.int(end)
	}
	if found != len(v.Ends) {
		e.fail(errors.New("astcodec: Document.Ends has keys outside Body"))
	}
}

type decoder struct {
	b     []byte
	i     int
	table []string
	s     slabs
	depth int
	err   error
}

// fail records the first error; every read after it returns zero values,
// which ends each decoding function at once.
func (d *decoder) fail() {
	if d.err == nil {
		d.err = errCorrupt
	}
	d.i = len(d.b)
}

// uint, int and str are small enough to inline: most numbers of a tree
// fit one byte. After a failure d.i is at the end, so only the slow path
// runs, and it returns zero.
func (d *decoder) uint() uint64 {
	if b := d.b; d.i < len(b) {
		if c := b[d.i]; c < 0x80 {
			d.i++
			return uint64(c)
		}
	}
	return d.uintSlow()
}

func (d *decoder) uintSlow() uint64 {
	if d.err != nil {
		return 0
	}
	u, n := binary.Uvarint(d.b[d.i:])
	if n <= 0 {
		d.fail()
		return 0
	}
	d.i += n
	return u
}

func (d *decoder) int() int {
	if b := d.b; d.i < len(b) {
		if c := b[d.i]; c < 0x80 {
			d.i++
			return int(c>>1) ^ -int(c&1) // zigzag, as binary.Varint
		}
	}
	return d.intSlow()
}

func (d *decoder) intSlow() int {
	if d.err != nil {
		return 0
	}
	v, n := binary.Varint(d.b[d.i:])
	if n <= 0 || int64(int(v)) != v {
		d.fail()
		return 0
	}
	d.i += n
	return int(v)
}

func (d *decoder) bool() bool {
	if d.err != nil || d.i >= len(d.b) || d.b[d.i] > 1 {
		d.fail()
		return false
	}
	d.i++
	return d.b[d.i-1] == 1
}

func (d *decoder) float() float64 {
	if d.err != nil || len(d.b)-d.i < 8 {
		d.fail()
		return 0
	}
	d.i += 8
	return math.Float64frombits(binary.LittleEndian.Uint64(d.b[d.i-8:]))
}

func (d *decoder) str() string {
	if i := d.uint(); i < uint64(len(d.table)) {
		return d.table[i]
	}
	d.fail()
	return ""
}

// readTable reads the string table. Its strings share one allocation:
// they are substrings of a single copy of the table's bytes.
func (d *decoder) readTable() {
	n := d.uint()
	if d.err != nil || n > uint64(len(d.b)-d.i) {
		d.fail()
		return
	}
	start := d.i
	for range n {
		l := d.uint()
		if d.err != nil || l > uint64(len(d.b)-d.i) {
			d.fail()
			return
		}
		d.i += int(l)
	}
	all := string(d.b[start:d.i])
	d.table = make([]string, n+1)
	j := 0
	for k := range n {
		l, m := binary.Uvarint(d.b[start+j:])
		j += m
		d.table[k+1] = all[j : j+int(l)]
		j += int(l)
	}
}

func (d *decoder) enter() bool {
	d.depth++
	if d.depth > MaxDepth {
		d.fail()
		return false
	}
	return true
}

func (d *decoder) leave() { d.depth-- }

// decEnds is encEnds' inverse; Body is decoded before it (field order).
func decEnds(d *decoder, v *ast.Document) {
	switch d.uint() {
	case 0:
		return
	case 1:
	default:
		d.fail()
		return
	}
	v.Ends = make(map[ast.Node]int, len(v.Body))
	set := 0
	for _, n := range v.Body {
		switch d.uint() {
		case 0:
		case 1:
			v.Ends[n] = d.int()
			set++
		default:
			d.fail()
			return
		}
	}
	// Two entries for equal keys (typed nil nodes) would make a map
	// Encode refuses.
	if len(v.Ends) != set {
		d.fail()
	}
}

// unknown fails the encoding of a node type outside package ast (a value
// of the tree's interfaces that the generated code has no case for).
func (e *encoder) unknown(v any) {
	e.fail(fmt.Errorf("astcodec: %T is not a node type the codec knows", v))
}
