package taint

// Union returns the merge of ds in order, followed by the data labels,
// taint and sources given: exactly
//
//	Descriptor{}.Merge(ds...).WithLabels(labels...).WithTaint(taint...).WithSources(sources...)
//
// in one pass. It exists for the taint post-hook, which runs after every
// hooked operation: the chained form copies a list per step, Union
// allocates at most once. Operation
// labels in labels and taint are dropped, as WithLabels and WithTaint do.
// The given slices are only read, never kept.
func Union(ds []Descriptor, labels, taint, sources []string) Descriptor {
	if n := len(ds); n > 0 && isUnionOf(ds[n-1], ds[:n-1], labels, taint, sources) {
		return ds[n-1]
	}
	var out Descriptor
	i := 0
	// The same fast paths as Merge: leading descriptors that add nothing,
	// or a first well-formed one, are taken as they are.
	for ; i < len(ds); i++ {
		o := ds[i]
		if o.IsZero() || out.Contains(o) {
			continue
		}
		if out.IsZero() && wellFormed(o) {
			out = o
			continue
		}
		break
	}
	if i == len(ds) && addsNothing(out, labels, taint, sources) {
		return out
	}
	return mergeLists(out, ds[i:], labels, taint, sources)
}

// isUnionOf reports, without allocating, whether merging ds, then x, then
// the raw lists gives exactly x. It does when x already is that merge (an
// exe call whose result was given its final descriptor): each list of the
// merge of ds must be a prefix of x's list (every item ds add is either
// already there or x's next one), and x must hold the raw lists.
func isUnionOf(x Descriptor, ds []Descriptor, labels, taint, sources []string) bool {
	var kl, kt, ks, kx int
	var ok bool
	for _, o := range ds {
		if kl, ok = prefixes(x.labels, kl, o.labels); !ok {
			return false
		}
		if kt, ok = prefixes(x.taint, kt, o.labels); !ok {
			return false
		}
		if kt, ok = prefixes(x.taint, kt, o.taint); !ok {
			return false
		}
		if ks, ok = prefixes(x.sources, ks, o.sources); !ok {
			return false
		}
		if kx, ok = prefixes(x.tools, kx, o.tools); !ok {
			return false
		}
	}
	return addsNothing(x, labels, taint, sources)
}

// prefixes advances k, the length of the prefix of list that a merge has
// built so far, over items; ok is false when an item is neither in the
// prefix nor the next entry of list.
func prefixes(list []string, k int, items []string) (int, bool) {
	for _, it := range items {
		if contains(list[:k], it) {
			continue
		}
		if k < len(list) && list[k] == it {
			k++
			continue
		}
		return k, false
	}
	return k, true
}

// addsNothing reports whether the raw lists would leave d unchanged.
func addsNothing(d Descriptor, labels, taint, sources []string) bool {
	for _, l := range labels {
		if !IsOperation(l) && (!contains(d.labels, l) || !contains(d.taint, l)) {
			return false
		}
	}
	for _, t := range taint {
		if !IsOperation(t) && !contains(d.taint, t) {
			return false
		}
	}
	return containsAll(d.sources, sources)
}

// mergeLists appends, in order and skipping what is already there, each of
// rest's labels (to labels and taint), taint and sources to base's lists,
// then the raw labels (to labels and taint, operation labels dropped), raw
// taint (operation labels dropped) and raw sources. This is the merge rule
// of Merge, WithLabels, WithTaint and WithSources applied one after the
// other. A list is copied only once it grows, into one backing array
// shared by the three lists and sized for the worst case (every item
// new), so a merge allocates at most once.
func mergeLists(base Descriptor, rest []Descriptor, labels, taint, sources []string) Descriptor {
	a := arena{out: base}
	a.size[0] = len(base.labels) + len(labels)
	a.size[1] = len(base.taint) + len(labels) + len(taint)
	a.size[2] = len(base.sources) + len(sources)
	a.size[3] = len(base.tools)
	for _, o := range rest {
		a.size[0] += len(o.labels)
		a.size[1] += len(o.labels) + len(o.taint)
		a.size[2] += len(o.sources)
		a.size[3] += len(o.tools)
	}
	for _, o := range rest {
		a.add(0, o.labels, false)
		a.add(1, o.labels, false)
		a.add(1, o.taint, false)
		a.add(2, o.sources, false)
		a.add(3, o.tools, false)
	}
	a.add(0, labels, true)
	a.add(1, labels, true)
	a.add(1, taint, true)
	a.add(2, sources, false)
	return a.out
}

// arena builds a merge result: lists 0, 1, 2 and 3 are labels, taint,
// sources and tools.
type arena struct {
	out Descriptor
	// size is the most entries each list can reach in this merge.
	size [4]int
	// owned marks the lists already copied into buf, which may be
	// appended to in place.
	owned [4]bool
	buf   []string
}

func (a *arena) list(i int) *[]string {
	switch i {
	case 0:
		return &a.out.labels
	case 1:
		return &a.out.taint
	case 2:
		return &a.out.sources
	}
	return &a.out.tools
}

// add appends the items list i lacks (operation labels skipped when
// dataOnly), copying the list into its region of buf first.
func (a *arena) add(i int, items []string, dataOnly bool) {
	l := a.list(i)
	for _, it := range items {
		if (dataOnly && IsOperation(it)) || contains(*l, it) {
			continue
		}
		if !a.owned[i] {
			if a.buf == nil {
				a.buf = make([]string, a.size[0]+a.size[1]+a.size[2]+a.size[3])
			}
			off := 0
			for j := 0; j < i; j++ {
				off += a.size[j]
			}
			// The region is capped at its size: appends stay inside it,
			// and an append by a later merge must copy.
			*l = append(a.buf[off:off:off+a.size[i]], *l...)
			a.owned[i] = true
		}
		*l = append(*l, it)
	}
}

// Memo remembers the last Union computed through it, so that an operation
// repeated with the same descriptors (an exe called in a loop with the
// same arguments) gets the same, shared, result without merging or
// allocating again. Descriptors are immutable, so sharing the result is
// safe; the inputs are compared by content, so a hit is always the
// result a fresh Union would give. The zero Memo is empty.
type Memo struct {
	ok                     bool
	ds                     []Descriptor
	labels, taint, sources []string
	out                    Descriptor
}

// Union is the package-level Union, answered from the memo when ds and
// the raw lists equal the previous call's.
func (m *Memo) Union(ds []Descriptor, labels, taint, sources []string) Descriptor {
	if m.ok && m.same(ds, labels, taint, sources) {
		return m.out
	}
	out := Union(ds, labels, taint, sources)
	m.ds = append(m.ds[:0], ds...)
	m.labels, m.taint, m.sources = append(m.labels[:0], labels...), append(m.taint[:0], taint...), append(m.sources[:0], sources...)
	m.out, m.ok = out, true
	return out
}

func (m *Memo) same(ds []Descriptor, labels, taint, sources []string) bool {
	if len(ds) != len(m.ds) || !equal(labels, m.labels) || !equal(taint, m.taint) || !equal(sources, m.sources) {
		return false
	}
	for i := range ds {
		a, b := &ds[i], &m.ds[i]
		if !equal(a.labels, b.labels) || !equal(a.taint, b.taint) || !equal(a.sources, b.sources) || !equal(a.tools, b.tools) {
			return false
		}
	}
	return true
}

// DescriptorMemo is Descriptor answered from m when the descriptors added
// equal those of m's previous use.
func (c *Collector) DescriptorMemo(m *Memo) Descriptor {
	if c.n > len(c.inline) {
		return c.Descriptor()
	}
	return m.Union(c.inline[:c.n], nil, nil, nil)
}
