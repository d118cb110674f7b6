package diffmlld

import (
	"context"
	"strings"
)

// Shrink reduces p's script by delta debugging (ddmin over lines) while
// the two peers still disagree in the same Kind, spending at most budget
// pairs of runs. Lines that open a block are kept together with their
// block's body: units are top-level statements, a statement being a line
// and the following lines up to the point where brackets balance again.
func Shrink(ctx context.Context, ours, ref Peer, p Program, kind Kind, budget int) Program {
	return shrink(ctx, new(Cache), ours, ref, p, kind, budget)
}

func shrink(ctx context.Context, cache *Cache, ours, ref Peer, p Program, kind Kind, budget int) Program {
	units := statements(p.Source)
	test := func(us []string) bool {
		if budget <= 0 || ctx.Err() != nil {
			return false
		}
		budget--
		q := p
		q.Source = strings.Join(us, "\n") + "\n"
		o, r := cache.Pair(ctx, ours, ref, q)
		return Compare(o, r) == kind
	}
	n := 2
	for len(units) >= 2 && budget > 0 {
		chunk := (len(units) + n - 1) / n
		reduced := false
		for start := 0; start < len(units); start += chunk {
			end := min(start+chunk, len(units))
			complement := append(append([]string{}, units[:start]...), units[end:]...)
			if len(complement) > 0 && test(complement) {
				units, n, reduced = complement, max(n-1, 2), true
				break
			}
		}
		if !reduced {
			if n >= len(units) {
				break
			}
			n = min(2*n, len(units))
		}
	}
	p.Source = strings.Join(units, "\n") + "\n"
	return p
}

// statements splits src into top-level statements: a line plus the lines
// that continue it while (, [ or { stay open or a ``` or :: block is open.
// Blank lines and comment-only lines are dropped.
func statements(src string) []string {
	var out []string
	var cur []string
	depth := 0
	for _, line := range strings.Split(src, "\n") {
		if len(cur) == 0 && (strings.TrimSpace(line) == "" || strings.HasPrefix(strings.TrimSpace(line), ">>")) {
			continue
		}
		cur = append(cur, line)
		depth += bracketDelta(line)
		if depth <= 0 {
			out = append(out, strings.Join(cur, "\n"))
			cur, depth = nil, 0
		}
	}
	if len(cur) > 0 {
		out = append(out, strings.Join(cur, "\n"))
	}
	return out
}

// bracketDelta counts opening minus closing brackets outside quotes; a
// rough count is enough to keep a block's lines together.
func bracketDelta(line string) int {
	d := 0
	var quote rune
	for _, r := range line {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			}
		case r == '"' || r == '\'':
			quote = r
		case r == '(' || r == '[' || r == '{':
			d++
		case r == ')' || r == ']' || r == '}':
			d--
		}
	}
	return d
}
