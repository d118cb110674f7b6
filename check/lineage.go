package check

import (
	"sort"
	"strings"

	"github.com/guardrun/guardrun/ast"
)

// LineageIndex answers, for an operation of a script, where the labels
// reaching it may have come from: the chain of values and operations
// from each labelled source, as the label-flow analysis sees it.
type LineageIndex struct {
	at map[string]map[string]*arrival // position key → fact key → arrival
}

type arrival struct {
	f    *fact
	desc string
}

// Lineage analyses doc once; At then looks operations up.
func Lineage(doc *ast.Document) *LineageIndex {
	ix := &LineageIndex{at: map[string]map[string]*arrival{}}
	c := newChecker(doc)
	c.declarations()
	c.runFlow(func(at ast.Pos, v facts, desc string) {
		for _, key := range []string{exactKey(at), lineKey(at)} {
			m := ix.at[key]
			if m == nil {
				m = map[string]*arrival{}
				ix.at[key] = m
			}
			for k, f := range v {
				if _, ok := m[k]; !ok {
					m[k] = &arrival{f: f, desc: desc}
				}
			}
		}
	})
	return ix
}

func exactKey(p ast.Pos) string { return p.File + ":" + itoa(p.Line) + ":" + itoa(p.Col) }
func lineKey(p ast.Pos) string  { return p.File + ":" + itoa(p.Line) }

// At returns the lineage of each of labels reaching the operation at pos
// (exactly there, else anywhere on its line), one line per source:
// `secret from @apiKey (line 3) → @summarize() → @summary → @post`.
// Labels the analysis does not follow, and operations in other files,
// have none.
func (ix *LineageIndex) At(pos ast.Pos, labels []string) []string {
	if ix == nil {
		return nil
	}
	m := ix.at[exactKey(pos)]
	if len(m) == 0 {
		m = ix.at[lineKey(pos)]
	}
	want := map[string]bool{}
	for _, l := range labels {
		want[l] = true
	}
	var out []string
	for _, a := range m {
		if !want[a.f.label] {
			continue
		}
		steps := append([]string{a.f.label + " from " + a.f.source + " (line " + itoa(a.f.line) + ")"}, a.f.via...)
		out = append(out, strings.Join(append(steps, a.desc), " → "))
	}
	sort.Strings(out)
	return out
}
