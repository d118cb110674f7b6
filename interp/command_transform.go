package interp

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/guardrun/guardrun/ast"
	"github.com/guardrun/guardrun/interp/code"
	"github.com/guardrun/guardrun/interp/value"
)

// setRunInput records (pc non-nil) or forgets the prepared command behind
// the input of a `/run cmd` operation.
func (in *interp) setRunInput(input *value.Variable, pc *preparedCommand) {
	if pc == nil {
		delete(in.runInputs, input)
		return
	}
	if in.runInputs == nil {
		in.runInputs = map[*value.Variable]*preparedCommand{}
	}
	in.runInputs[input] = pc
}

// maxRemapSteps bounds the search that fits a transformed command onto
// its literal text; past it the transform is refused.
const maxRemapSteps = 1 << 20

// transformed is the command a guard transform of its `/run` input asks
// for: the same literal text with new values, carrying the labels of both.
// A result that does not keep every literal piece, in order, or that fits
// them in more than one way when the values changed, is an error: the
// transform would change what runs, not only the data.
func (pc *preparedCommand) transformed(repl *value.Variable) (*preparedCommand, error) {
	text := rawText(repl)
	out := &preparedCommand{segs: pc.segs, desc: pc.desc.Merge(repl.Security), flowChecked: true}
	if text == pc.text() {
		return out, nil
	}
	lits, vals := pc.skeleton()
	got, why := remapValues(lits, vals, text)
	if why != "" {
		return nil, newError(KindGuard, ast.Pos{},
			"a guard may change the values interpolated into a command, never its own text; deny the operation instead, or transform the values where they are defined",
			"guard transform of /run cannot be applied: %s (command %q)", why, clip(strings.Join(lits, "@…")))
	}
	out.segs = nil
	for i, l := range lits {
		if i > 0 {
			out.segs = append(out.segs, code.Segment{Value: got[i-1], IsValue: true})
		}
		if l != "" {
			out.segs = append(out.segs, code.Segment{Literal: l})
		}
	}
	return out, nil
}

// skeleton splits the command into n+1 literal pieces around its n values.
func (pc *preparedCommand) skeleton() (lits, vals []string) {
	var cur strings.Builder
	for _, s := range pc.segs {
		if !s.IsValue {
			cur.WriteString(s.Literal)
			continue
		}
		lits = append(lits, cur.String())
		vals = append(vals, s.Value)
		cur.Reset()
	}
	return append(lits, cur.String()), vals
}

// remapValues fits text onto the literal pieces lits and returns the
// values between them, or why it cannot. Blanks at either end of the
// command are not significant, so a trim is allowed there. Where the
// pieces fit in several ways, a value equal to the original (vals) is
// preferred; any remaining choice refuses the transform.
func remapValues(lits, vals []string, text string) ([]string, string) {
	lits = append([]string(nil), lits...)
	n := len(vals)
	lits[0], text = trimEdge(lits[0], text, false)
	if !strings.HasSuffix(lits[n], `\`) {
		lits[n], text = trimEdge(lits[n], text, true)
	}
	if !strings.HasPrefix(text, lits[0]) || len(text) < len(lits[0])+len(lits[n]) || !strings.HasSuffix(text, lits[n]) {
		return nil, "it changes the command's own text"
	}
	if n == 0 {
		if text != lits[0] {
			return nil, "it changes the command's own text"
		}
		return nil, ""
	}
	end := len(text) - len(lits[n])
	steps := 0
	// fits[i][p] caches whether values i.. can start at p (0 unknown,
	// 1 yes, 2 no).
	fits := make([]map[int]int8, n)
	for i := range fits {
		fits[i] = map[int]int8{}
	}
	// next lists where value i, starting at p, may end: before an
	// occurrence of the literal after it (the last value ends at end).
	next := func(i, p int) []int {
		if i == n-1 {
			if p <= end {
				return []int{end}
			}
			return nil
		}
		var qs []int
		for q := p; q <= end; {
			k := strings.Index(text[q:end], lits[i+1])
			if k < 0 {
				break
			}
			qs = append(qs, q+k)
			q += k + 1
			steps++
			if steps > maxRemapSteps {
				break
			}
		}
		return qs
	}
	var fit func(i, p int) bool
	fit = func(i, p int) bool {
		if i == n {
			return p == len(text)
		}
		if f := fits[i][p]; f != 0 {
			return f == 1
		}
		ok := false
		for _, q := range next(i, p) {
			if steps > maxRemapSteps {
				break
			}
			if fit(i+1, q+len(lits[i+1])) {
				ok = true
				break
			}
		}
		fits[i][p] = 2
		if ok {
			fits[i][p] = 1
		}
		return ok
	}
	p := len(lits[0])
	if !fit(0, p) {
		if steps > maxRemapSteps {
			return nil, "the command is too long to match"
		}
		return nil, "it changes the command's own text"
	}
	out := make([]string, n)
	for i := range n {
		var cands []int
		for _, q := range next(i, p) {
			if fit(i+1, q+len(lits[i+1])) {
				cands = append(cands, q)
			}
		}
		q := -1
		for _, c := range cands {
			if text[p:c] == vals[i] {
				q = c
			}
		}
		switch {
		case q >= 0:
		case len(cands) == 1:
			q = cands[0]
		default:
			return nil, fmt.Sprintf("its text fits the command's values in more than one way (value %d)", i+1)
		}
		out[i] = text[p:q]
		p = q + len(lits[i+1])
	}
	return out, ""
}

// clip shortens text quoted in an error message.
func clip(text string) string {
	const max = 120
	if len(text) <= max {
		return text
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(text[cut]) {
		cut--
	}
	return text[:cut] + "…"
}

// trimEdge drops the blanks at the start (or, with end, the end) of the
// command's edge literal lit and the matching blanks of text, where they
// are not significant: all of them when lit has text of its own, else
// no more than lit had (a value at the edge keeps its own blanks).
func trimEdge(lit, text string, end bool) (string, string) {
	const blanks = " \t\r\n"
	trim, trimText := strings.TrimLeft, strings.TrimLeft
	if end {
		trim, trimText = strings.TrimRight, strings.TrimRight
	}
	if t := trim(lit, blanks); t != "" {
		return t, trimText(text, blanks)
	}
	k := 0
	for k < len(lit) && k < len(text) {
		c := text[k]
		if end {
			c = text[len(text)-1-k]
		}
		if strings.IndexByte(blanks, c) < 0 {
			break
		}
		k++
	}
	if end {
		return "", text[:len(text)-k]
	}
	return "", text[k:]
}
