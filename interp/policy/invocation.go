package policy

import "strings"

// invocation is a command a simple command runs: the words
// [start, end) of it. fed marks a command that gets further arguments
// only known when it runs (what xargs reads from its input).
type invocation struct {
	start, end int
	fed        bool
	// found marks a find -exec command, where {} stands for each path.
	found bool
}

// view is the invocation's words as patterns match them.
func (c *simpleCmd) view(inv invocation) cmdView {
	return cmdView{tokens: c.tokens[inv.start:inv.end], dyn: c.dyn[inv.start:inv.end], fed: inv.fed}
}

var shellBinaries = map[string]bool{
	"sh": true, "bash": true, "zsh": true, "dash": true, "fish": true,
	"csh": true, "tcsh": true, "ksh": true, "ash": true,
}

var networkTools = map[string]bool{
	"curl": true, "wget": true, "nc": true, "netcat": true, "ncat": true,
	"socat": true, "ssh": true, "scp": true, "sftp": true, "rsync": true,
	"ftp": true, "telnet": true,
}

// wrappers run their argument as a command.
var wrappers = map[string]bool{
	"env": true, "nice": true, "nohup": true, "timeout": true, "strace": true,
	"time": true, "exec": true, "command": true, "xargs": true, "busybox": true,
	"builtin": true, "sudo": true, "doas": true, "setsid": true, "stdbuf": true,
	"ionice": true, "chrt": true, "taskset": true, "unbuffer": true,
}

// wrapperFlagsWithArg may take the next word as their argument. Tokens
// are lower-cased, so "-s" stands for both -s and -S; a flag wrongly
// listed here costs nothing, because both readings are checked.
var wrapperFlagsWithArg = map[string]bool{
	"-u": true, "-s": true, "--split-string": true, "-t": true, "--timeout": true,
	"--signal": true, "-n": true, "-p": true, "-i": true, "-l": true,
	"-d": true, "-a": true, "-e": true, "-k": true, "-o": true, "-c": true,
	"-g": true, "-r": true,
}

// findExec are the find actions that run the words after them, up to ';'
// or '+', as a command.
var findExec = map[string]bool{"-exec": true, "-execdir": true, "-ok": true, "-okdir": true}

// invocations returns the commands c runs: c itself and, recursively, the
// commands its wrappers (env, timeout, xargs …) and find -exec run.
// Where a flag may or may not take an argument, both readings count, so
// the guess errs towards checking more.
func invocations(c *simpleCmd) []invocation {
	out := []invocation{{start: 0, end: len(c.tokens)}}
	add := func(inv invocation) {
		if inv.start >= inv.end || len(out) >= 16 {
			return
		}
		for _, x := range out {
			if x.start == inv.start && x.end == inv.end {
				return
			}
		}
		out = append(out, inv)
	}
	for k := 0; k < len(out); k++ {
		inv := out[k]
		toks := c.tokens[inv.start:inv.end]
		switch {
		case toks[0] == "find":
			for i := 1; i < len(toks); i++ {
				if !findExec[toks[i]] {
					continue
				}
				j := i + 1
				for j < len(toks) && toks[j] != ";" && toks[j] != "+" {
					j++
				}
				add(invocation{start: inv.start + i + 1, end: inv.start + j, fed: inv.fed, found: true})
				i = j
			}
		case wrappers[toks[0]]:
			fed := inv.fed || toks[0] == "xargs"
			for _, o := range wrappedOffsets(toks, c.dyn[inv.start:inv.end]) {
				add(invocation{start: inv.start + o, end: inv.end, fed: fed})
			}
		}
	}
	return out
}

// wrappedOffsets returns where, within the words of a wrapper, the
// command it runs may start.
func wrappedOffsets(toks []string, dyn []bool) []int {
	var offs []int
	i := 1
	for i < len(toks) {
		t := toks[i]
		if t == "--" {
			i++
			break
		}
		if strings.HasPrefix(t, "-") {
			if wrapperFlagsWithArg[t] && i+1 < len(toks) {
				offs = append(offs, i+1)
				i += 2
			} else {
				i++
			}
			continue
		}
		if strings.Contains(t, "=") && !dyn[i] {
			i++
			continue
		}
		break
	}
	if i < len(toks) {
		if (toks[0] == "timeout" && toks[i] != "" && toks[i][0] >= '0' && toks[i][0] <= '9' || dyn[i]) && i+1 < len(toks) {
			// timeout's duration, or a computed word that may be one.
			offs = append(offs, i+1)
		}
		offs = append(offs, i)
	}
	return offs
}

// shellScript returns the script the invocation runs as shell text: the
// -c argument of a shell, the arguments of eval, the action of trap.
func shellScript(c *simpleCmd, inv invocation) (string, bool) {
	at, ok := scriptWord(c, inv)
	switch {
	case !ok:
		return "", false
	case at < 0:
		return strings.Join(c.raw[inv.start+1:inv.end], " "), true
	}
	return c.raw[inv.start+at], true
}

// scriptWord returns the index, within the invocation, of the word it
// runs as a script, or -1 for eval, which runs all its arguments.
func scriptWord(c *simpleCmd, inv invocation) (int, bool) {
	raw := c.raw[inv.start:inv.end]
	switch prog := c.tokens[inv.start]; {
	case prog == "eval":
		return -1, len(raw) > 1
	case prog == "trap":
		return 1, len(raw) > 2
	case shellBinaries[prog]:
		// Every -…c… flag counts, not only those before the first operand:
		// reading too many scripts only checks more.
		for j := 1; j+1 < len(raw); j++ {
			if t := raw[j]; len(t) > 1 && t[0] == '-' && t[1] != '-' && strings.ContainsRune(t[1:], 'c') {
				return j + 1, true
			}
		}
	}
	return 0, false
}

// inlineCode are interpreters and the flags (lower-cased, as tokens are)
// that make them run code given on the command line.
var inlineCode = map[string][]string{
	"python": {"c"}, "pypy": {"c"}, "perl": {"e"}, "ruby": {"e"},
	"node": {"e", "p", "--eval", "--print"}, "nodejs": {"e", "p", "--eval", "--print"},
	"bun": {"e", "p", "--eval", "--print"}, "deno": {"eval"},
	"php": {"r", "b", "e"}, "lua": {"e"}, "luajit": {"e"},
	"osascript": {"e"}, "expect": {"c"},
}

// awkLike are the awk implementations.
var awkLike = map[string]bool{"awk": true, "gawk": true, "mawk": true, "nawk": true}

// opaqueCode says why the invocation runs code the policy cannot read, or
// returns "": a computed command name, an interpreter given code on the
// command line (python -c, perl -e, an awk program that calls system or
// a pipe), an alias definition, a shell reading its script from its input
// or given one built from its input (xargs sh -c '{}').
func opaqueCode(c *simpleCmd, inv invocation) string {
	toks := c.tokens[inv.start:inv.end]
	raw := c.raw[inv.start:inv.end]
	dyn := c.dyn[inv.start:inv.end]
	prog := toks[0]
	switch {
	case dyn[0] || (inv.found && strings.Contains(raw[0], "{}")):
		return "its name is only known when it runs"
	case prog == "alias" && anyContains(raw[1:], "="):
		return "an alias names a command the policy cannot follow"
	case awkLike[prog]:
		for i, r := range raw[1:] {
			if dyn[i+1] || strings.Contains(r, "system") || strings.Contains(r, "|") || strings.Contains(r, "@") ||
				inFlags(toks[i+1], "f", "e", "i", "l", "--file", "--exec", "--include", "--load", "--source") {
				return "an awk program that can run commands"
			}
		}
	case shellBinaries[prog] || prog == "eval" || prog == "trap":
		at, hasScript := scriptWord(c, inv)
		switch {
		case hasScript && (inv.fed || inv.found && anyContains(raw, "{}")):
			return "a script built from its input"
		case hasScript && at < 0 && anyTrue(dyn[1:]):
			return "a script only known when it runs"
		case hasScript && at > 0 && dyn[at]:
			return "a script only known when it runs"
		case !hasScript && shellBinaries[prog] && readsStdin(toks):
			return "a script read from its input"
		}
	default:
		flags, ok := inlineCode[interpreterName(prog)]
		if !ok {
			break
		}
		operand := false
		for i, t := range toks[1:] {
			switch {
			case inFlags(t, flags...) || (prog == "deno" && t == "eval"):
				return "code given on its command line"
			case dyn[i+1] && !operand:
				// A computed word before the script may be a code flag.
				return "code given on its command line"
			case !strings.HasPrefix(t, "-") && !strings.HasPrefix(toks[i], "-"):
				operand = true
			}
		}
	}
	return ""
}

// interpreterName strips a version from an interpreter's name:
// python3.12 and perl5.36 are python and perl.
func interpreterName(prog string) string {
	name := strings.TrimRight(prog, "0123456789.")
	if name == "" {
		return prog
	}
	return name
}

// inFlags reports whether token t sets one of flags: a one-letter flag
// inside a cluster (-c, -Sc) or a long flag (--eval, --eval=…).
func inFlags(t string, flags ...string) bool {
	if !strings.HasPrefix(t, "-") || t == "-" || t == "--" {
		return false
	}
	long := strings.HasPrefix(t, "--")
	name := t
	if long {
		name, _, _ = strings.Cut(t, "=")
	}
	for _, f := range flags {
		switch {
		case len(f) == 1 && !long && strings.Contains(t[1:], f):
			return true
		case len(f) > 1 && name == f:
			return true
		}
	}
	return false
}

// readsStdin reports a shell run with no operand (or -s): it reads its
// script from standard input.
func readsStdin(toks []string) bool {
	for _, t := range toks[1:] {
		switch {
		case t == "--version" || t == "--help":
			return false
		case inFlags(t, "s"):
			return true
		case !strings.HasPrefix(t, "-") && !strings.HasPrefix(t, "+"):
			return false
		}
	}
	return true
}

func anyContains(ws []string, sub string) bool {
	for _, w := range ws {
		if strings.Contains(w, sub) {
			return true
		}
	}
	return false
}

func anyTrue(bs []bool) bool {
	for _, b := range bs {
		if b {
			return true
		}
	}
	return false
}
