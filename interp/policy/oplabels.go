package policy

import (
	"slices"
	"strings"
)

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
	// At most three labels: op:cmd, the program's, its first argument's.
	labels := append(make([]string, 0, 3), "op:cmd")
	if inv.start >= inv.end || c.val[inv.start] || c.dyn[inv.start] {
		return labels
	}
	prefix := "op:cmd:" + c.tokens[inv.start]
	labels = append(labels, prefix)
	first := inv.start + 1
	if inv.sub > first {
		// git's subcommand, after its global options.
		first = inv.sub
	}
	for i := first; i < inv.end; i++ {
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

// CommandLineOpLabels is CommandOpLabels for a command line given as
// text, as an agent's shell tool sends it, parsed as bash: union is
// op:cmd and then every command's labels once, in order (what guards
// match and `@mx.op.labels` shows); perCmd are the per-command lists
// label-flow rules check one by one. `cd x && git push` gets op:cmd:cd,
// op:cmd:cd:x, op:cmd:git and op:cmd:git:push, so a guard on op:cmd:git
// sees a push a chained or nested command would otherwise hide. ok is
// false when some command cannot be checked (a line bash would not
// parse, a construct the analysis does not model, nesting beyond what it
// follows, a NUL byte): the labels are incomplete and the caller must
// refuse the line.
func CommandLineOpLabels(line string) (union []string, perCmd [][]string, ok bool) {
	return opLabelsOf(parseShellLine(line))
}

// OpLabels are a command line's operation labels as CommandLineOpLabels
// gives them, read from a parse made for another purpose
// (CommandFacts.OpLabels), so a decision parses its line once.
type OpLabels struct {
	Union      []string
	PerCommand [][]string
	// Checked is CommandLineOpLabels's ok.
	Checked bool
}

// opLabelsOf is CommandLineOpLabels of a parsed line.
func opLabelsOf(sl *shellLine) (union []string, perCmd [][]string, ok bool) {
	n := 0
	for i := range sl.cmds {
		n += len(sl.cmds[i].invs)
	}
	union = append(make([]string, 0, 1+2*n), "op:cmd")
	if n > 0 {
		perCmd = make([][]string, 0, n)
	}
	for i := range sl.cmds {
		c := &sl.cmds[i]
		for _, inv := range c.invs {
			labels := simpleOpLabels(c, inv)
			perCmd = append(perCmd, labels)
			for _, l := range labels {
				if !slices.Contains(union, l) {
					union = append(union, l)
				}
			}
		}
	}
	if sl.unchecked != "" {
		return union, perCmd, false
	}
	return union, perCmd, true
}
