package policy

// CommandOpLabels are the operation labels of a command line as the agent
// engine gives them to a command tool (AGENT.md §3): op:cmd, then for
// every simple command the line may run (split as the capability checks
// split it, nested scripts included) op:cmd:<w1> and op:cmd:<w1>:<w2>,
// each once, in order. `cd x && git push` gets op:cmd:cd, op:cmd:cd:x,
// op:cmd:git and op:cmd:git:push, so a guard on op:cmd:git sees the push
// a chained or nested command would otherwise hide. ok is false when the
// line nests deeper than the splitter follows: its labels are incomplete
// and the caller must refuse it.
func CommandOpLabels(line string) (labels []string, ok bool) {
	out := []string{"op:cmd"}
	seen := map[string]bool{"op:cmd": true}
	add := func(l string) {
		if !seen[l] {
			seen[l] = true
			out = append(out, l)
		}
	}
	ok = true
	for _, c := range splitCommands(line) {
		if c.tooDeep {
			ok = false
		}
		if len(c.tokens) == 0 {
			continue
		}
		l := "op:cmd:" + c.tokens[0]
		add(l)
		if len(c.tokens) > 1 {
			add(l + ":" + c.tokens[1])
		}
	}
	return out, ok
}
