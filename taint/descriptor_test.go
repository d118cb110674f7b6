package taint_test

import (
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/guardrun/guardrun/taint"
)

func TestMergeOrderFollowsSpec(t *testing.T) {
	// SPEC §4.1: `var retryable @r = <cmd exe>` gives taint
	// ["retryable","src:cmd"]: the declared labels first, then the taint.
	cmd := taint.Descriptor{}.WithTaint(taint.SrcCmd)
	d := taint.New("retryable").Merge(cmd)
	require.Equal(t, []string{"retryable"}, d.Labels())
	require.Equal(t, []string{"retryable", "src:cmd"}, d.Taint())

	// For each merged descriptor: its labels (to labels and taint), then
	// its taint, then its sources.
	a := taint.Make([]string{"pii"}, []string{"src:js"}, []string{"exe"})
	b := taint.Make([]string{"secret"}, []string{"src:file", "dir:/a"}, []string{"/a/f"})
	m := a.Merge(b)
	require.Equal(t, []string{"pii", "secret"}, m.Labels())
	require.Equal(t, []string{"pii", "src:js", "secret", "src:file", "dir:/a"}, m.Taint())
	require.Equal(t, []string{"exe", "/a/f"}, m.Sources())
}

func TestEveryLabelIsTaint(t *testing.T) {
	d := taint.Make([]string{"secret", "pii"}, []string{"src:js"}, nil)
	for _, l := range d.Labels() {
		require.True(t, d.HasTaint(l), "label %q missing from taint %v", l, d.Taint())
	}
}

func TestOperationLabelsNeverBecomeData(t *testing.T) {
	d := taint.New("secret", "op:cmd", "op:cmd:git").WithTaint("op:js")
	require.Equal(t, []string{"secret"}, d.Labels())
	require.Equal(t, []string{"secret"}, d.Taint())
	require.True(t, taint.IsOperation("op:show"))
	require.False(t, taint.IsOperation("opera"))
}

func TestMergeDoesNotAliasInputs(t *testing.T) {
	base := taint.New("a", "b")
	keep := append([]string(nil), base.Labels()...)
	_ = base.WithLabels("c")
	_ = base.Merge(taint.New("d"))
	_ = base.WithoutLabels("a")
	require.Equal(t, keep, base.Labels(), "a method changed its receiver")
}

func TestMergeAddingNothingKeepsReceiver(t *testing.T) {
	d := taint.New("secret")
	require.True(t, d.Merge(taint.New("secret"), taint.Descriptor{}).Equal(d))
	allocs := testing.AllocsPerRun(100, func() { _ = d.Merge(taint.New()) })
	require.Zero(t, allocs)
}

func TestWithoutLabelsKeepsFactualTaint(t *testing.T) {
	d := taint.Make([]string{"secret", "pii"}, []string{"src:file", "dir:/x"}, nil)
	out := d.WithoutLabels("secret", "src:file", "dir:/x")
	require.Equal(t, []string{"pii"}, out.Labels())
	require.Equal(t, []string{"pii", "src:file", "dir:/x"}, out.Taint())
}

func TestWithoutNewSourceTaint(t *testing.T) {
	in := taint.New("secret").WithTaint("src:js")
	stage := in.WithLabels("network").WithTaint("src:cmd")
	out := stage.WithoutNewSourceTaint(in)
	require.Equal(t, []string{"secret", "network"}, out.Labels())
	require.Equal(t, []string{"secret", "src:js", "network"}, out.Taint())
}

func TestSourceFor(t *testing.T) {
	cases := []struct {
		kind taint.BodyKind
		lang string
		want string
	}{
		{taint.BodyTemplate, "", "src:template"},
		{taint.BodyBlock, "", "src:exe"},
		{taint.BodyCode, "js", "src:js"},
		{taint.BodyCode, "javascript", "src:js"},
		{taint.BodyCode, "node", "src:node"},
		{taint.BodyCode, "sh", "src:sh"},
		{taint.BodyCode, "bash", "src:sh"},
		{taint.BodyCode, "cmd", "src:cmd"},
		{taint.BodyCode, "py", "src:py"},
	}
	for _, c := range cases {
		require.Equal(t, c.want, taint.SourceFor(c.kind, c.lang), "%v %q", c.kind, c.lang)
	}
}

func TestDirTaint(t *testing.T) {
	require.Equal(t, []string{"dir:/a/b", "dir:/a"}, taint.DirTaint("/a/b/f.txt"))
	require.Empty(t, taint.DirTaint("/f"))
}

func TestProtectedAndFactual(t *testing.T) {
	require.True(t, taint.IsProtected("secret"))
	require.True(t, taint.IsProtected("untrusted"))
	require.True(t, taint.IsProtected("src:js"))
	require.False(t, taint.IsProtected("pii"))
	require.True(t, taint.IsFactual("dir:/x"))
	require.False(t, taint.IsFactual("secret"))
}

// TestMergeIsUnion checks the set laws on random descriptors: the merge
// contains both sides, is idempotent, and keeps the invariants.
func TestMergeIsUnion(t *testing.T) {
	pool := []string{"secret", "pii", "untrusted", "net:w", "src:js", "src:cmd", "dir:/a", "op:cmd", "x", "y"}
	r := rand.New(rand.NewSource(1))
	pick := func() []string {
		var out []string
		for i := r.Intn(5); i > 0; i-- {
			out = append(out, pool[r.Intn(len(pool))])
		}
		return out
	}
	for i := 0; i < 5000; i++ {
		a := taint.Make(pick(), pick(), pick())
		b := taint.Make(pick(), pick(), pick())
		m := a.Merge(b)
		require.True(t, m.Contains(a), "%v ∪ %v = %v", a, b, m)
		require.True(t, m.Contains(b), "%v ∪ %v = %v", a, b, m)
		require.True(t, m.Merge(a).Equal(m))
		require.True(t, m.Merge(b).Equal(m))
		seen := map[string]bool{}
		for _, l := range m.Labels() {
			require.False(t, seen[l], "duplicate label %q in %v", l, m)
			seen[l] = true
			require.True(t, m.HasTaint(l))
			require.False(t, taint.IsOperation(l))
		}
		// Nothing appears from nowhere.
		for _, x := range m.Taint() {
			require.True(t, a.HasTaint(x) || b.HasTaint(x), "%q came from nowhere", x)
		}
	}
}

func BenchmarkMergeThreeLabelled(b *testing.B) {
	x, y, z := taint.New("secret"), taint.New("pii"), taint.New("internal")
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		_ = taint.Descriptor{}.Merge(x, y, z)
	}
}

// TestCollectorMatchesSequentialMerge: collecting and merging once gives
// exactly what merging one by one gives.
func TestCollectorMatchesSequentialMerge(t *testing.T) {
	pool := []string{"secret", "pii", "src:js", "src:cmd", "dir:/a", "x"}
	r := rand.New(rand.NewSource(2))
	for i := 0; i < 2000; i++ {
		var c taint.Collector
		var seq taint.Descriptor
		for j := r.Intn(12); j > 0; j-- {
			d := taint.Make([]string{pool[r.Intn(len(pool))]}, []string{pool[r.Intn(len(pool))]}, nil)
			if r.Intn(3) == 0 {
				d = taint.Descriptor{}
			}
			c.Add(d)
			seq = seq.Merge(d)
		}
		require.True(t, c.Descriptor().Equal(seq), "collector %v, sequential %v", c.Descriptor(), seq)
	}
}
