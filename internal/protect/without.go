package protect

// Without returns s without the protected roots named names, as Covers,
// Inside and Mentions name them (a root such as
// /home/u/.claude/settings*.json, a directory between the home directory
// and a root, a tail such as .claude/settings): the user's opt-in to
// let the agent write what guardrun protects. s is not changed.
func (s Set) Without(names ...string) Set {
	if len(names) == 0 {
		return s
	}
	drop := make(map[string]bool, len(names))
	for _, n := range names {
		drop[n] = true
	}
	out := s
	out.roots = nil
	for _, r := range s.roots {
		if !drop[r.name] {
			out.roots = append(out.roots, r)
		}
	}
	out.ids = nil
	for _, id := range s.ids {
		if !drop[id.root] {
			out.ids = append(out.ids, id)
		}
	}
	out.needles = nil
	for _, n := range s.needles {
		if !drop[n.root] {
			out.needles = append(out.needles, n)
		}
	}
	out.pre = make([]prefix, len(s.pre))
	copy(out.pre, s.pre)
	for i := range out.pre {
		if drop[out.pre[i].at.root] {
			out.pre[i].at.inside, out.pre[i].at.root = "", ""
		}
	}
	return out
}
