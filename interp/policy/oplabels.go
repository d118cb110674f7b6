package policy

import "strings"

// ValuePlaceholder stands for an interpolated value in a command line
// given to CommandOpLabels. A value is data, not shell text: it names no
// command, and a word holding one cannot be relied on as a program name.
const ValuePlaceholder = "\x00"

// CommandOpLabels returns, for every simple command the line may run (as
// CheckCommand sees them, wrapped commands included), its operation
// labels: "op:cmd", "op:cmd:<prog>" and "op:cmd:<prog>:<first argument>".
// Words made only of placeholders are skipped, so `echo @x there` has
// op:cmd:echo:there (SPEC §10 P19); a program word holding a placeholder
// gives bare "op:cmd", which only the generic rules match.
func CommandOpLabels(line string) [][]string {
	var out [][]string
	for _, c := range splitCommands(line) {
		for _, o := range commandOffsets(c.tokens) {
			out = append(out, simpleOpLabels(c.raw[o:], c.tokens[o]))
		}
	}
	return out
}

func simpleOpLabels(raw []string, prog string) []string {
	labels := []string{"op:cmd"}
	if strings.Contains(prog, ValuePlaceholder) {
		return labels
	}
	prefix := "op:cmd:" + prog
	labels = append(labels, prefix)
	for _, w := range raw[1:] {
		if strings.Trim(w, ValuePlaceholder) == "" {
			continue
		}
		if sub := strings.ToLower(strings.ReplaceAll(w, ValuePlaceholder, "")); sub != "" {
			labels = append(labels, prefix+":"+sub)
		}
		break
	}
	return labels
}
