package taint_test

import (
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/guardrun/guardrun/taint"
)

// model is the merge rule of SPEC §4.1 written as plainly as possible:
// for each descriptor, append its labels to labels and taint, then its
// taint, then its sources, skipping what is already there.
type model struct{ labels, taint, sources []string }

func (m *model) add(list *[]string, items ...string) {
	for _, it := range items {
		found := false
		for _, x := range *list {
			found = found || x == it
		}
		if !found {
			*list = append(*list, it)
		}
	}
}

func (m *model) merge(d taint.Descriptor) {
	m.add(&m.labels, d.Labels()...)
	m.add(&m.taint, d.Labels()...)
	m.add(&m.taint, d.Taint()...)
	m.add(&m.sources, d.Sources()...)
}

func nonEmpty(l []string) []string {
	if len(l) == 0 {
		return nil
	}
	return l
}

func requireModel(t *testing.T, m model, d taint.Descriptor) {
	t.Helper()
	require.Equal(t, nonEmpty(m.labels), nonEmpty(d.Labels()))
	require.Equal(t, nonEmpty(m.taint), nonEmpty(d.Taint()))
	require.Equal(t, nonEmpty(m.sources), nonEmpty(d.Sources()))
}

func randomDescriptor(r *rand.Rand, pool []string) taint.Descriptor {
	if r.Intn(4) == 0 {
		return taint.Descriptor{}
	}
	pick := func() []string {
		var out []string
		for j := r.Intn(4); j > 0; j-- {
			out = append(out, pool[r.Intn(len(pool))])
		}
		return out
	}
	return taint.Make(pick(), pick(), pick())
}

// TestMergeMatchesModel: Merge builds its result in scratch space and
// shares unchanged lists; whatever path it takes, the result is the
// model's, including past the scratch size (pool of 40 names).
func TestMergeMatchesModel(t *testing.T) {
	pool := []string{"secret", "pii", "src:js", "src:cmd", "dir:/a", "x", "/f"}
	for i := 0; i < 40; i++ {
		pool = append(pool, "l"+string(rune('a'+i%26))+string(rune('a'+i/26)))
	}
	r := rand.New(rand.NewSource(3))
	for i := 0; i < 3000; i++ {
		base := randomDescriptor(r, pool)
		m := model{}
		m.merge(base)
		var others []taint.Descriptor
		for j := r.Intn(12); j > 0; j-- {
			o := randomDescriptor(r, pool)
			others = append(others, o)
			m.merge(o)
		}
		requireModel(t, m, base.Merge(others...))
	}
}

// TestUnionMatchesChainedForm: Union is Merge followed by WithLabels,
// WithTaint and WithSources, operation labels dropped.
func TestUnionMatchesChainedForm(t *testing.T) {
	pool := []string{"secret", "pii", "src:template", "src:exe", "op:cmd", "op:js", "dir:/a", "x", "/f"}
	r := rand.New(rand.NewSource(4))
	raw := func() []string {
		var out []string
		for j := r.Intn(3); j > 0; j-- {
			out = append(out, pool[r.Intn(len(pool))])
		}
		return out
	}
	for i := 0; i < 3000; i++ {
		var ds []taint.Descriptor
		for j := r.Intn(5); j > 0; j-- {
			ds = append(ds, randomDescriptor(r, pool))
		}
		l, tt, s := raw(), raw(), raw()
		want := taint.Descriptor{}.Merge(ds...).WithLabels(l...).WithTaint(tt...).WithSources(s...)
		got := taint.Union(ds, l, tt, s)
		require.True(t, got.Equal(want), "Union %v, chained %v", got, want)
	}
}

// TestMergeResultIsIndependent: a merged descriptor shares one backing
// array among its lists; growing one (through a later merge) must not
// change another or the inputs.
func TestMergeResultIsIndependent(t *testing.T) {
	a := taint.Make([]string{"a"}, []string{"src:js"}, []string{"s1"})
	b := taint.Make([]string{"b"}, nil, []string{"s2"})
	m := a.Merge(b)
	m2 := m.Merge(taint.New("c"))
	m3 := m.Merge(taint.New("d"))
	require.Equal(t, []string{"a", "b"}, m.Labels())
	require.Equal(t, []string{"a", "src:js", "b"}, m.Taint())
	require.Equal(t, []string{"a", "b", "c"}, m2.Labels())
	require.Equal(t, []string{"a", "b", "d"}, m3.Labels())
	require.Equal(t, []string{"a", "src:js", "b", "d"}, m3.Taint())
	require.Equal(t, []string{"a"}, a.Labels())
}

// TestUnionAllocatesOnce: the taint post-hook's common case (labelled
// inputs, a template's result, its src:template taint) costs one
// allocation, and none when nothing is added.
func TestUnionAllocatesOnce(t *testing.T) {
	ins := []taint.Descriptor{taint.New("secret"), taint.New("pii"), taint.New("internal")}
	res := taint.Descriptor{}.Merge(ins...)
	ds := append(append([]taint.Descriptor(nil), ins...), res)
	opTaint := []string{taint.SrcTemplate}
	n := testing.AllocsPerRun(100, func() { _ = taint.Union(ds, nil, opTaint, nil) })
	require.Equal(t, 1.0, n)
	got := taint.Union(ds, nil, opTaint, nil)
	require.Equal(t, []string{"secret", "pii", "internal"}, got.Labels())
	require.Equal(t, []string{"secret", "pii", "internal", "src:template"}, got.Taint())
	full := []taint.Descriptor{got, taint.New("pii")}
	n = testing.AllocsPerRun(100, func() { _ = taint.Union(full, nil, opTaint, nil) })
	require.Equal(t, 0.0, n)
}

// TestUnionOfFinalDescriptor: when the last descriptor already is the
// union (an exe result given its final descriptor early), Union returns
// it without allocating; when its order differs from the merge's, the
// merge's order wins.
func TestUnionOfFinalDescriptor(t *testing.T) {
	pool := []string{"secret", "pii", "src:template", "src:exe", "op:cmd", "dir:/a", "x", "/f"}
	r := rand.New(rand.NewSource(5))
	for i := 0; i < 2000; i++ {
		var ds []taint.Descriptor
		for j := r.Intn(5); j > 0; j-- {
			ds = append(ds, randomDescriptor(r, pool))
		}
		raw := []string{pool[r.Intn(len(pool))]}
		final := taint.Union(ds, raw, raw, nil)
		with := append(append([]taint.Descriptor(nil), ds...), final)
		want := taint.Descriptor{}.Merge(with...).WithLabels(raw...).WithTaint(raw...)
		require.True(t, taint.Union(with, raw, raw, nil).Equal(want))
		require.Equal(t, 0.0, testing.AllocsPerRun(5, func() { _ = taint.Union(with, raw, raw, nil) }))
	}
	// Same items, other order: not the merge.
	ds := []taint.Descriptor{taint.New("pii"), taint.New("secret")}
	got := taint.Union(append(ds, taint.New("secret", "pii")), nil, nil, nil)
	require.Equal(t, []string{"pii", "secret"}, got.Labels())
}
