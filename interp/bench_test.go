package interp_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/guardrun/guardrun/ast"
	"github.com/guardrun/guardrun/grammar"
	"github.com/guardrun/guardrun/interp"
)

// exeCallScript calls a three-parameter template exe calls times from a
// for-expression, with its arguments labelled or not. Everything but the
// labels is identical, so the difference between the two runs is the cost
// of carrying labels through the call (issue 3: at most 1.3×).
func exeCallScript(labelled bool, calls int) string {
	la, lb, lc := "", "", ""
	if labelled {
		la, lb, lc = "secret ", "pii ", "internal "
	}
	items := make([]string, calls)
	for i := range items {
		items[i] = fmt.Sprint(i)
	}
	return fmt.Sprintf(`var %s@a = "alpha"
var %s@b = "beta"
var %s@c = "gamma"
var @items = [%s]
exe @f(x, y, z) = `+"`@x-@y-@z`"+`
var @out = for @i in @items => @f(@a, @b, @c)
show @out.length
`, la, lb, lc, strings.Join(items, ","))
}

// BenchmarkExeCall reports ns per exe call (the script's total divided by
// the number of calls) with unlabelled and labelled arguments.
func BenchmarkExeCall(b *testing.B) {
	const calls = 200
	for _, labelled := range []bool{false, true} {
		name := "unlabelled"
		if labelled {
			name = "labelled"
		}
		b.Run(name, func(b *testing.B) {
			doc, err := grammar.Parse("bench.mld", []byte(exeCallScript(labelled, calls)), ast.Strict)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				res, err := interp.Run(context.Background(), doc, interp.Options{})
				if err != nil {
					b.Fatal(err)
				}
				if res.Document != fmt.Sprintf("%d\n", calls) {
					b.Fatalf("document %q", res.Document)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*calls), "ns/call")
		})
	}
}
