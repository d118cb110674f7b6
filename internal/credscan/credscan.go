package credscan

import "sort"

// Match is one credential found in a text: the rule that matched and
// the byte span of the secret value itself, text[Start:End].
type Match struct {
	Rule       string
	Start, End int
}

// Scan returns the credentials in text, in order, non-overlapping.
// Where a named rule and the generic assignment rule cover the same
// bytes, the named rule wins; among named rules, the earlier and then
// the longer match wins, and at one span the rule listed first (a
// token's own rule before the config-file line it sits in).
func Scan(text string) []Match {
	var named []Match
	for _, r := range namedRules {
		named = r.appendMatches(named, text, -1)
	}
	generic := assignments.appendMatches(nil, text, -1)
	if len(named) == 0 && len(generic) == 0 {
		return nil
	}
	out := disjoint(named, nil)
	return disjoint(generic, out)
}

// Has reports whether text holds any credential, as len(Scan(text)) > 0
// would, but stops at the first one found and sorts nothing.
func Has(text string) bool {
	var one [1]Match
	for _, r := range namedRules {
		if len(r.appendMatches(one[:0], text, 1)) > 0 {
			return true
		}
	}
	return len(assignments.appendMatches(one[:0], text, 1)) > 0
}

// disjoint adds to kept those of cands that overlap neither kept nor
// each other, earlier and then longer candidates first, and returns
// the result sorted by start.
func disjoint(cands, kept []Match) []Match {
	sort.SliceStable(cands, func(i, j int) bool {
		if cands[i].Start != cands[j].Start {
			return cands[i].Start < cands[j].Start
		}
		return cands[i].End > cands[j].End
	})
	base := len(kept)
	for _, c := range cands {
		if overlapsAny(c, kept[:base]) || (len(kept) > base && c.Start < kept[len(kept)-1].End) {
			continue
		}
		kept = append(kept, c)
	}
	sort.Slice(kept, func(i, j int) bool { return kept[i].Start < kept[j].Start })
	return kept
}

// overlapsAny reports whether m overlaps one of sorted, which is
// sorted by start and disjoint.
func overlapsAny(m Match, sorted []Match) bool {
	i := sort.Search(len(sorted), func(i int) bool { return sorted[i].End > m.Start })
	return i < len(sorted) && sorted[i].Start < m.End
}
