package policy

import "strings"

// CommandOpLabels returns, for every simple command the line may run (as
// CheckCommandParts sees them, wrapped commands included), its operation
// labels: "op:cmd", "op:cmd:<prog>" and "op:cmd:<prog>:<first argument>".
// Values are data, not shell text: they name no command and no argument
// label. Words holding a value are skipped, so `echo @x there` has
// op:cmd:echo:there (SPEC §10 P19); a program word holding a value (or
// only known when the shell expands it) gives bare "op:cmd", which only
// the generic rules match. A line the splitter refuses gives bare "op:cmd".
func CommandOpLabels(parts []CommandPart) [][]string {
	cmds, ok := (&lexer{opaque: true}).split(parts)
	if !ok {
		return [][]string{{"op:cmd"}}
	}
	var out [][]string
	for i := range cmds {
		c := &cmds[i]
		for _, inv := range c.invs {
			out = append(out, simpleOpLabels(c, inv))
		}
	}
	return out
}

func simpleOpLabels(c *simpleCmd, inv invocation) []string {
	labels := []string{"op:cmd"}
	if inv.start >= inv.end || c.val[inv.start] || c.dyn[inv.start] {
		return labels
	}
	prefix := "op:cmd:" + c.tokens[inv.start]
	labels = append(labels, prefix)
	for i := inv.start + 1; i < inv.end; i++ {
		if c.val[i] {
			continue
		}
		if sub := strings.ToLower(c.raw[i]); sub != "" {
			labels = append(labels, prefix+":"+sub)
		}
		break
	}
	return labels
}
