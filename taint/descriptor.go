package taint

import "strings"

// Descriptor is the security descriptor of one value (SPEC §4.1).
//
// Invariants kept by every constructor and method: no list holds a
// duplicate, insertion order is kept, every label is also taint, and no
// label or taint entry is an operation label ("op:*"), because operation
// labels describe an operation, never data.
//
// The zero Descriptor is empty and ready to use.
type Descriptor struct {
	labels  []string
	taint   []string
	sources []string
	// tools is the value's tool lineage (mlld's `.mx.tools`): one entry
	// per exe call it came through, oldest first, each a call's unique
	// "name#n" (see Tools).
	tools []string
}

// New returns a descriptor with the given data labels (each also taint).
// Operation labels are dropped.
func New(labels ...string) Descriptor {
	return Descriptor{}.WithLabels(labels...)
}

// Make builds a descriptor from its three lists, restoring the invariants:
// duplicates and operation labels are dropped and every label is added to
// taint (after the given taint entries that precede it in merge order).
func Make(labels, taint, sources []string) Descriptor {
	return Descriptor{}.Merge(Descriptor{
		labels:  dataOnly(labels),
		taint:   dataOnly(taint),
		sources: dedup(sources),
	})
}

// Labels returns the data labels. The slice must not be modified.
func (d Descriptor) Labels() []string { return d.labels }

// Taint returns labels and provenance markers. The slice must not be
// modified.
func (d Descriptor) Taint() []string { return d.taint }

// Sources returns the provenance strings. The slice must not be modified.
func (d Descriptor) Sources() []string { return d.sources }

// Tools returns the tool lineage entries ("name#n": the call's exe name
// and a number unique in the run). The slice must not be modified.
func (d Descriptor) Tools() []string { return d.tools }

// WithTools returns d with the tool lineage entries added.
func (d Descriptor) WithTools(tools ...string) Descriptor {
	return d.Merge(Descriptor{tools: dedup(tools)})
}

// IsZero reports whether d carries nothing at all.
func (d Descriptor) IsZero() bool {
	return len(d.labels) == 0 && len(d.taint) == 0 && len(d.sources) == 0 && len(d.tools) == 0
}

// HasLabel reports whether l is one of d's data labels.
func (d Descriptor) HasLabel(l string) bool { return contains(d.labels, l) }

// HasTaint reports whether t is in d's taint.
func (d Descriptor) HasTaint(t string) bool { return contains(d.taint, t) }

// Contains reports whether every label, taint entry and source of o is
// also in d: merging o into d would change nothing.
func (d Descriptor) Contains(o Descriptor) bool {
	return containsAll(d.labels, o.labels) && containsAll(d.taint, o.taint) && containsAll(d.sources, o.sources) && containsAll(d.tools, o.tools)
}

// Equal reports whether d and o hold the same lists in the same order.
func (d Descriptor) Equal(o Descriptor) bool {
	return equal(d.labels, o.labels) && equal(d.taint, o.taint) && equal(d.sources, o.sources) && equal(d.tools, o.tools)
}

// Merge returns the union of d and the others, in order (SPEC §4.1): for
// each descriptor its labels are appended to labels and taint, then its
// taint, then its sources. Merging descriptors that add nothing returns d
// itself without allocating; otherwise the merge is built in scratch space
// and the lists that changed share one new allocation (see merge.go).
func (d Descriptor) Merge(others ...Descriptor) Descriptor {
	out := d
	for i, o := range others {
		// identical (the same lists: merging a value's descriptor into a
		// result that already took it) is the cheap common case of
		// Contains.
		if o.IsZero() || identical(&out, &o) || out.Contains(o) {
			continue
		}
		if out.IsZero() && wellFormed(o) {
			out = o
			continue
		}
		return mergeLists(out, others[i:], nil, nil, nil)
	}
	return out
}

// WithLabels returns d with the data labels added (to labels and taint).
// Operation labels ("op:*") never become data labels and are dropped.
func (d Descriptor) WithLabels(labels ...string) Descriptor {
	return d.Merge(Descriptor{labels: dataOnly(labels)})
}

// WithTaint returns d with the taint entries added. Operation labels are
// dropped.
func (d Descriptor) WithTaint(taint ...string) Descriptor {
	return d.Merge(Descriptor{taint: dataOnly(taint)})
}

// WithSources returns d with the sources added.
func (d Descriptor) WithSources(sources ...string) Descriptor {
	return d.Merge(Descriptor{sources: dedup(sources)})
}

// WithoutLabels returns d without the given data labels. The labels leave
// taint as well, except factual provenance (src:*, dir:*), which no label
// change can remove. Whether a caller may remove a label at all (privilege,
// protected labels) is decided by the caller.
func (d Descriptor) WithoutLabels(labels ...string) Descriptor {
	drop := func(l string) bool { return contains(labels, l) && !IsFactual(l) }
	return Descriptor{
		labels:  filter(d.labels, drop),
		taint:   filter(d.taint, drop),
		sources: d.sources,
		tools:   d.tools,
	}
}

// WithoutNewSourceTaint returns d without the src:* taint entries that base
// does not carry. Pipelines use it: a stage adds its exe labels to the
// value flowing through, but not the source taint of its body kind
// (SPEC §4.2, pipeline row).
func (d Descriptor) WithoutNewSourceTaint(base Descriptor) Descriptor {
	return Descriptor{
		labels:  d.labels,
		taint:   filter(d.taint, func(t string) bool { return IsSource(t) && !base.HasTaint(t) }),
		sources: d.sources,
		tools:   d.tools,
	}
}

// String renders d for messages and debugging.
func (d Descriptor) String() string {
	s := "labels=[" + strings.Join(d.labels, ",") + "] taint=[" + strings.Join(d.taint, ",") +
		"] sources=[" + strings.Join(d.sources, ",") + "]"
	if len(d.tools) > 0 {
		s += " tools=[" + strings.Join(d.tools, ",") + "]"
	}
	return s
}

// wellFormed reports whether o can be used as a merge result as it is:
// every label already in its taint, so the merge rule would not reorder
// anything.
func wellFormed(o Descriptor) bool {
	if len(o.taint) < len(o.labels) {
		return false
	}
	for i, l := range o.labels {
		if o.taint[i] != l {
			return containsAll(o.taint, o.labels) && labelsLeadTaint(o)
		}
	}
	return true
}

// labelsLeadTaint reports whether merging o into an empty descriptor would
// produce o unchanged: labels first in taint, in the same order.
func labelsLeadTaint(o Descriptor) bool {
	for i, l := range o.labels {
		if i >= len(o.taint) || o.taint[i] != l {
			return false
		}
	}
	return true
}

// identical reports whether a and b hold the very same lists (not only
// equal ones).
func identical(a, b *Descriptor) bool {
	return sameList(a.labels, b.labels) && sameList(a.taint, b.taint) && sameList(a.sources, b.sources) && sameList(a.tools, b.tools)
}

func sameList(a, b []string) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func containsAll(list, items []string) bool {
	for _, it := range items {
		if !contains(list, it) {
			return false
		}
	}
	return true
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	// Descriptors share their lists (merges reuse them, memos hand them
	// out again), so the same backing array is the common case.
	if len(a) == 0 || &a[0] == &b[0] {
		return true
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// appendNew returns list with the items it lacks appended. The input slice
// is never written to: a new slice is made when something is added.
func appendNew(list, items []string) []string {
	var out []string
	for _, it := range items {
		if contains(list, it) || contains(out, it) {
			continue
		}
		if out == nil {
			out = make([]string, len(list), len(list)+len(items))
			copy(out, list)
		}
		out = append(out, it)
	}
	if out == nil {
		return list
	}
	return out
}

func dedup(list []string) []string { return appendNew(nil, list) }

func dataOnly(list []string) []string {
	return dedup(filter(list, IsOperation))
}

// filter returns list without the entries drop selects; list itself when
// nothing is dropped.
func filter(list []string, drop func(string) bool) []string {
	for i, x := range list {
		if drop(x) {
			out := append([]string(nil), list[:i]...)
			for _, y := range list[i+1:] {
				if !drop(y) {
					out = append(out, y)
				}
			}
			return out
		}
	}
	return list
}

// Collector gathers descriptors to merge them in one Merge call, which
// copies each list at most once instead of once per descriptor. The result
// is exactly that of merging them one by one in the order added. The zero
// Collector is ready to use.
type Collector struct {
	n      int
	inline [6]Descriptor
	more   []Descriptor
}

// Add records d to be merged after those already added.
func (c *Collector) Add(d Descriptor) {
	if d.IsZero() || (c.n > 0 && c.last().Equal(d)) {
		return
	}
	if c.n < len(c.inline) {
		c.inline[c.n] = d
	} else {
		c.more = append(c.more, d)
	}
	c.n++
}

func (c *Collector) last() Descriptor {
	if c.n <= len(c.inline) {
		return c.inline[c.n-1]
	}
	return c.more[len(c.more)-1]
}

// Descriptor returns the merge of everything added.
func (c *Collector) Descriptor() Descriptor {
	k := min(c.n, len(c.inline))
	return Descriptor{}.Merge(c.inline[:k]...).Merge(c.more...)
}
