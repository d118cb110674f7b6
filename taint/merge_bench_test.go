package taint_test

import (
	"testing"

	"github.com/guardrun/guardrun/taint"
)

// BenchmarkCollectThree is the descriptor work of a template
// interpolating three differently labelled values.
func BenchmarkCollectThree(b *testing.B) {
	ds := []taint.Descriptor{taint.New("secret"), taint.New("pii"), taint.New("internal")}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		var c taint.Collector
		for _, d := range ds {
			c.Add(d)
		}
		_ = c.Descriptor()
	}
}

// BenchmarkUnionPostHook is the taint post-hook's merge for such a call.
func BenchmarkUnionPostHook(b *testing.B) {
	ins := []taint.Descriptor{taint.New("secret"), taint.New("pii"), taint.New("internal")}
	ds := append(append([]taint.Descriptor(nil), ins...), taint.Descriptor{}.Merge(ins...))
	opTaint := []string{taint.SrcTemplate}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		_ = taint.Union(ds, nil, opTaint, nil)
	}
}
