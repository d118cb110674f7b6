package agent

import (
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// trustPropertySeed is GUARDRUN_SEED when set, else the clock.
func trustPropertySeed(t *testing.T) uint64 {
	if s := os.Getenv("GUARDRUN_SEED"); s != "" {
		n, err := strconv.ParseUint(s, 10, 64)
		require.NoError(t, err)
		return n
	}
	return uint64(time.Now().UnixNano())
}

// Over random pipelines (a prompt, then tools of random declared returns
// called with arguments drawn from what came before, each output
// bringing values of its own), a trust label is on an argument only
// when every value in it came from a text that had that label, and it
// is there whenever they all did; a tool's output has a trust label
// exactly when the tool declares it returns it, whatever its arguments
// carry. Rerun a failure with GUARDRUN_SEED=<seed>.
func TestTrustIsIntersectionProperty(t *testing.T) {
	seed := trustPropertySeed(t)
	t.Logf("seed %d (GUARDRUN_SEED=%d reruns it)", seed, seed)
	r := rand.New(rand.NewPCG(seed, 0x41))
	trustLabels := []string{"known", "trust:bank"}
	for round := range 40 {
		ntools := 2 + r.IntN(4)
		returns := make([][]string, ntools)
		var decl strings.Builder
		decl.WriteString("var tools @t = {\n  \"sink\": { labels: [\"sink\"] }")
		for i := range returns {
			for _, l := range append(slices.Clone(trustLabels), "thirdparty") {
				if r.IntN(2) == 0 {
					returns[i] = append(returns[i], l)
				}
			}
			q := make([]string, len(returns[i]))
			for j, l := range returns[i] {
				q[j] = strconv.Quote(l)
			}
			fmt.Fprintf(&decl, ",\n  \"t%d\": { labels: [\"read\"], returns: [%s] }", i, strings.Join(q, ", "))
		}
		decl.WriteString("\n}\nguard @p before op:prompt = when [\n  * => allow with { addLabels: [\"known\"] }\n]\n")
		e := newEngine(t, decl.String())
		sid := fmt.Sprintf("r%d", round)
		// origin of each value: the labels of the text that brought it.
		from := map[string][]string{}
		var pool []string
		fresh := func(n int, labels []string) []string {
			var vs []string
			for range n {
				v := fmt.Sprintf("v%d-%d@x%d.example", round, len(from), r.IntN(1000))
				from[v] = labels
				vs = append(vs, v)
			}
			pool = append(pool, vs...)
			return vs
		}
		pv := fresh(1+r.IntN(3), []string{"known"})
		e.Decide(t.Context(), Event{Kind: PromptSubmit, Session: sid, Text: "please use " + strings.Join(pv, " and ")})
		pick := func() any {
			if r.IntN(3) == 0 {
				n := 1 + r.IntN(3)
				list := make([]any, n)
				for i := range list {
					list[i] = pool[r.IntN(len(pool))]
				}
				return list
			}
			return pool[r.IntN(len(pool))]
		}
		values := func(x any) []string {
			if l, ok := x.([]any); ok {
				out := make([]string, len(l))
				for i, v := range l {
					out[i] = v.(string)
				}
				return out
			}
			return []string{x.(string)}
		}
		for range 3 + r.IntN(6) {
			ti := r.IntN(ntools)
			arg := pick()
			out := fresh(1+r.IntN(3), returns[ti])
			d := e.Decide(t.Context(), Event{Kind: ToolAfter, Session: sid, Tool: fmt.Sprintf("t%d", ti),
				Input: map[string]any{"q": arg}, Output: "result: " + strings.Join(out, ", ")})
			for _, l := range trustLabels {
				require.Equal(t, slices.Contains(returns[ti], l), slices.Contains(d.Labels, l),
					"seed %d: output of t%d (returns %v, argument %v) labelled %v", seed, ti, returns[ti], arg, d.Labels)
			}
			arg = pick()
			d = e.Decide(t.Context(), Event{Kind: ToolBefore, Session: sid, Tool: "sink", Input: map[string]any{"v": arg}})
			for _, l := range trustLabels {
				every := true
				for _, v := range values(arg) {
					every = every && slices.Contains(from[v], l)
				}
				require.Equal(t, every, slices.Contains(d.Labels, l),
					"seed %d: argument %v (sources %v) labelled %v", seed, arg, from, d.Labels)
			}
		}
	}
}
