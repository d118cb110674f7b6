package policy

import (
	"slices"
	"strings"
)

// invocation is a command a simple command runs: the words
// [start, end) of it. fed marks a command that gets further arguments
// only known when it runs (what xargs reads from its input).
type invocation struct {
	start, end int
	fed        bool
	// found marks a find -exec command, where {} stands for each path.
	found bool
	// sub, when above start+1, is where the subcommand of a CLI with
	// global options (git, kubectl, docker, …: globalValueOptions) is:
	// the words between the program and it are global options (-C dir,
	// -n prod, --no-pager …), which patterns and labels skip.
	sub int
}

// view is the invocation's words as patterns match them; a CLI's global
// options are left out, so `git -C . push --force` is a force push and
// `kubectl -n prod delete pod x` a kubectl delete.
func (c *simpleCmd) view(inv invocation) cmdView {
	if inv.sub > inv.start+1 {
		n := 1 + inv.end - inv.sub
		v := cmdView{tokens: make([]string, 0, n), dyn: make([]bool, 0, n), fed: inv.fed}
		v.tokens = append(append(v.tokens, c.tokens[inv.start]), c.tokens[inv.sub:inv.end]...)
		v.dyn = append(append(v.dyn, c.dyn[inv.start]), c.dyn[inv.sub:inv.end]...)
		return v
	}
	return cmdView{tokens: c.tokens[inv.start:inv.end], dyn: c.dyn[inv.start:inv.end], fed: inv.fed}
}

// globalValueOptions are, for the common CLIs whose first word is a
// subcommand, the global options that take the next word as their value
// (lower-cased): `kubectl -n prod delete` deletes, `git -C dir push`
// pushes. An option not listed takes no value (`--no-pager`, or one
// written `--opt=value`); the subcommand is the first word that is
// neither an option nor a listed option's value.
var globalValueOptions = map[string][]string{
	"git": {"-c", "-C", "--git-dir", "--work-tree", "--namespace", "--super-prefix", "--config-env", "--attr-source",
		"--exec-path", "--list-cmds"},
	"kubectl": {"-n", "--namespace", "--context", "--cluster", "--kubeconfig", "-s", "--server", "--user", "--token",
		"--as", "--as-group", "--as-uid", "--certificate-authority", "--client-certificate", "--client-key",
		"--request-timeout", "--cache-dir", "-v", "--v", "--vmodule", "--log-file", "--tls-server-name",
		"--username", "--password", "--profile", "--profile-output", "-o", "--output", "-l", "--selector", "-f", "--filename"},
	"docker": {"-H", "--host", "--context", "-c", "--config", "-l", "--log-level", "--tlscacert", "--tlscert", "--tlskey"},
	"podman": {"--url", "-c", "--connection", "--identity", "--root", "--runroot", "--log-level", "--storage-driver",
		"--cgroup-manager", "--events-backend", "--module", "--network-cmd-path", "--tmpdir"},
	"helm": {"-n", "--namespace", "--kube-context", "--kubeconfig", "--kube-apiserver", "--kube-as-user", "--kube-as-group",
		"--kube-ca-file", "--kube-token", "--kube-tls-server-name", "--registry-config", "--repository-cache",
		"--repository-config", "--burst-limit", "--qps"},
	// terraform's global options are written -chdir=DIR: no value word.
	"terraform": {},
	"aws": {"--profile", "--region", "--output", "--endpoint-url", "--query", "--ca-bundle", "--cli-read-timeout",
		"--cli-connect-timeout", "--color", "--cli-binary-format"},
	"gcloud": {"--project", "--account", "--configuration", "--verbosity", "--format", "--impersonate-service-account",
		"--billing-project", "--flags-file", "--trace-token"},
	"npm":   {"--prefix", "-w", "--workspace", "--registry", "--cache", "--userconfig", "--globalconfig", "--loglevel"},
	"pnpm":  {"-C", "--dir", "-F", "--filter", "--workspace-dir", "--reporter", "--loglevel"},
	"yarn":  {"--cwd"},
	"cargo": {"-C", "--config", "-Z", "--color", "--manifest-path"},
	"go":    {"-C"},
}

// takesValue reports whether prog's global option t takes the next word
// as its value; git's options are matched lower-cased, as git reads
// them case-blind here.
func takesValue(prog, t string) bool {
	for _, o := range globalValueOptions[prog] {
		if o == t || prog == "git" && strings.EqualFold(o, t) {
			return true
		}
	}
	return false
}

// globalSubcommand returns the offset, within the raw words of a command
// of prog, a CLI in globalValueOptions, of its subcommand: the first word after
// its global options (every option word before it, a listed option with
// its value; cargo's +toolchain too). A word only known when the command
// runs stops the skip there, so it stands in for the subcommand. It
// returns 1 when there are no global options.
func globalSubcommand(prog string, raw []string, dyn []bool) int {
	i := 1
	for i < len(raw) && !dyn[i] && (strings.HasPrefix(raw[i], "-") && raw[i] != "-" && raw[i] != "--" || prog == "cargo" && strings.HasPrefix(raw[i], "+")) {
		if takesValue(prog, raw[i]) && i+1 < len(raw) {
			if dyn[i+1] {
				return i + 1
			}
			i++
		}
		i++
	}
	if i < len(raw) && raw[i] == "--" {
		i++
	}
	if i >= len(raw) {
		return 1
	}
	return i
}

// wrapperFlagsWithArg reports whether a wrapper's flag may take the next
// word as its argument. Tokens are lower-cased, so "-s" stands for both
// -s and -S; a flag wrongly listed here costs nothing, because both
// readings are checked.
func wrapperFlagsWithArg(flag string) bool {
	switch flag {
	case "-u", "-s", "--split-string", "-t", "--timeout", "-j", "--jobs", "--interval",
		"--signal", "-n", "-p", "-i", "-l",
		"-d", "-a", "-e", "-k", "-o", "-c",
		"-g", "-r":
		return true
	}
	return false
}

// findExec reports whether a find action runs the words after it, up to
// ';' or '+', as a command.
func findExec(action string) bool {
	switch action {
	case "-exec", "-execdir", "-ok", "-okdir":
		return true
	}
	return false
}

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
		if _, ok := globalValueOptions[toks[0]]; ok && !c.dyn[inv.start] {
			out[k].sub = inv.start + globalSubcommand(toks[0], c.raw[inv.start:inv.end], c.dyn[inv.start:inv.end])
		}
		switch {
		case toks[0] == "find":
			for i := 1; i < len(toks); i++ {
				if !findExec(toks[i]) {
					continue
				}
				j := i + 1
				for j < len(toks) && toks[j] != ";" && toks[j] != "+" {
					j++
				}
				add(invocation{start: inv.start + i + 1, end: inv.start + j, fed: inv.fed, found: true})
				i = j
			}
		case Is(toks[0], Wrapper) && !(toks[0] == "parallel" && slices.Contains(toks, ":::")):
			// parallel with its inputs on the line runs a script of its
			// own (shellScript); reading them from stdin it is xargs.
			fed := inv.fed || toks[0] == "xargs" || toks[0] == "parallel"
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
			if wrapperFlagsWithArg(t) && i+1 < len(toks) {
				if !(toks[0] == "env" && (t == "-s" || t == "--split-string")) {
					// env -S's value is always its split string, a
					// script of its own (scriptWord), never the program.
					offs = append(offs, i+1)
				}
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
		duration := (toks[0] == "timeout" || toks[0] == "repeat") && !dyn[i] && toks[i] != "" && toks[i][0] >= '0' && toks[i][0] <= '9'
		if (duration || dyn[i]) && i+1 < len(toks) {
			// timeout's duration, or a computed word that may be one.
			offs = append(offs, i+1)
		}
		if !duration || i+1 == len(toks) {
			// A duration written out is not the command.
			offs = append(offs, i)
		}
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
	if c.tokens[inv.start] == "parallel" {
		// The command's words joined, as parallel composes it, once per
		// input: in place of each {}, else after the words; the inputs
		// quoted, as parallel quotes them.
		words := c.raw[inv.start+1 : inv.start+at]
		for len(words) > 0 && strings.HasPrefix(words[0], "-") {
			if wrapperFlagsWithArg(words[0]) && len(words) > 1 {
				words = words[1:]
			}
			words = words[1:]
		}
		cmd := strings.Join(words, " ")
		var lines []string
		for _, in := range c.raw[inv.start+at+1 : inv.end] {
			if in == ":::" {
				continue
			}
			q := shellQuoteWord(in)
			if strings.Contains(cmd, "{}") {
				lines = append(lines, strings.ReplaceAll(cmd, "{}", q))
			} else {
				lines = append(lines, cmd+" "+q)
			}
		}
		return strings.Join(lines, "; "), len(lines) > 0
	}
	if c.tokens[inv.start] == "watch" {
		return strings.Join(c.raw[inv.start+at:inv.end], " "), true
	}
	if c.tokens[inv.start] == "env" {
		// The split string (glued or the next word), then the words
		// after it, as env runs them.
		t := c.raw[inv.start+at]
		rest := inv.start + at + 1
		switch {
		case strings.HasPrefix(t, "--split-string="):
			t = strings.TrimPrefix(t, "--split-string=")
		case t == "--split-string" || strings.HasSuffix(t, "S"):
			if rest >= inv.end {
				return "", false
			}
			t = c.raw[rest]
			rest++
		default:
			t = t[strings.IndexByte(t, 'S')+1:]
		}
		return strings.Join(append([]string{t}, c.raw[rest:inv.end]...), " "), true
	}
	return c.raw[inv.start+at], true
}

// shellQuoteWord quotes s as one bash word.
func shellQuoteWord(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// scriptWord returns the index, within the invocation, of the word it
// runs as a script, or -1 for eval, which runs all its arguments.
func scriptWord(c *simpleCmd, inv invocation) (int, bool) {
	raw := c.raw[inv.start:inv.end]
	switch prog := c.tokens[inv.start]; {
	case prog == "eval":
		return -1, len(raw) > 1
	case prog == "env":
		// env -S 'cmd args' splits its value into a command line.
		for j := 1; j < len(raw); j++ {
			t := raw[j]
			if t == "--" || !strings.HasPrefix(t, "-") {
				break
			}
			if t == "-S" || t == "--split-string" || strings.HasPrefix(t, "-S") || strings.HasPrefix(t, "--split-string=") ||
				len(t) > 2 && t[1] != '-' && strings.ContainsRune(t[1:], 'S') {
				return j, true
			}
		}
	case prog == "trap":
		return 1, len(raw) > 2
	case prog == "parallel":
		// parallel [options] COMMAND… ::: INPUTS…: a script of one
		// command per input (shellScript).
		if i := slices.Index(raw, ":::"); i > 1 && !slices.Contains(raw, "::::") {
			return i, true
		}
	case prog == "watch":
		// watch [options] WORDS…: the words joined, run by sh -c (-x
		// runs them directly: read as a script, the same commands).
		for j := 1; j < len(raw); j++ {
			t := raw[j]
			switch {
			case t == "--":
				return j + 1, j+1 < len(raw)
			case t == "-n" || t == "--interval" || t == "-q" || t == "--equexit":
				j++
			case strings.HasPrefix(t, "-"):
			default:
				return j, true
			}
		}
	case Is(prog, Shell):
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

// inlineCodeFlags are interpreters and the flags (lower-cased, as tokens
// are) that make them run code given on the command line. A slice, laid
// out by the compiler, not a map built at start; see inlineCode.
var inlineCodeFlags = []struct {
	prog  string
	flags []string
}{
	{"python", []string{"c"}}, {"pypy", []string{"c"}}, {"perl", []string{"e"}}, {"ruby", []string{"e"}},
	{"node", []string{"e", "p", "--eval", "--print"}}, {"nodejs", []string{"e", "p", "--eval", "--print"}},
	{"bun", []string{"e", "p", "--eval", "--print"}}, {"deno", []string{"eval"}},
	{"php", []string{"r", "b", "e"}}, {"lua", []string{"e"}}, {"luajit", []string{"e"}},
	{"osascript", []string{"e"}}, {"expect", []string{"c"}},
}

// inlineCode returns the code flags of the interpreter prog; ok is false
// when prog is not one.
func inlineCode(prog string) (flags []string, ok bool) {
	for _, e := range inlineCodeFlags {
		if e.prog == prog {
			return e.flags, true
		}
	}
	return nil, false
}

// awkLike reports whether prog is an awk implementation.
func awkLike(prog string) bool {
	switch prog {
	case "awk", "gawk", "mawk", "nawk":
		return true
	}
	return false
}

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
	case prog == "git" && gitConfigRunsCode(raw, dyn, inv.sub-inv.start):
		return "a git -c setting that can run a command"
	case prog == "alias" && anyContains(raw[1:], "="):
		return "an alias names a command the policy cannot follow"
	case awkLike(prog):
		for i, r := range raw[1:] {
			if dyn[i+1] || strings.Contains(r, "system") || strings.Contains(r, "|") || strings.Contains(r, "@") ||
				inFlags(toks[i+1], "f", "e", "i", "l", "--file", "--exec", "--include", "--load", "--source") {
				return "an awk program that can run commands"
			}
		}
	case Is(prog, Shell) || prog == "eval" || prog == "trap":
		at, hasScript := scriptWord(c, inv)
		switch {
		case hasScript && (inv.fed || inv.found && anyContains(raw, "{}")):
			return "a script built from its input"
		case hasScript && at < 0 && anyTrue(dyn[1:]):
			return "a script only known when it runs"
		case hasScript && at > 0 && dyn[at]:
			return "a script only known when it runs"
		case !hasScript && Is(prog, Shell) && readsStdin(toks):
			return scriptFromInput
		case !hasScript && Is(prog, Shell):
			if at := scriptOperand(toks); at > 0 && dyn[at] {
				// bash <(curl …), sh "$(mktemp)": the script's text is
				// only there when the line runs.
				return "a script only known when it runs"
			}
		}
	case prog == "source" || prog == ".":
		if at := scriptOperand(toks); at > 0 && dyn[at] {
			return "a script only known when it runs"
		}
	default:
		flags, ok := inlineCode(interpreterName(prog))
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
		// No script named, or `-`: the interpreter reads its program
		// from its input, as `curl … | python3` or `python3 - <<EOF`
		// hand it; one computed when the line runs (`python3
		// <(curl …)`) is as unknown.
		switch at := scriptOperand(toks); {
		case at < 0 && !infoOnly(toks), at > 0 && toks[at] == "-":
			return scriptFromInput
		case at > 0 && dyn[at]:
			return "a script only known when it runs"
		}
	}
	return ""
}

// scriptFromInput is opaqueCode's reason for a shell or interpreter that
// reads its program from its standard input.
const scriptFromInput = "a script read from its input"

// scriptOperand is the index in toks of the first word after the
// program that is not a flag (the script a shell or interpreter runs,
// `-` for its input), or -1. A flag's separate value counts as the
// operand: read as a script, it is checked, never missed.
func scriptOperand(toks []string) int {
	for i := 1; i < len(toks); i++ {
		switch t := toks[i]; {
		case t == "--":
			if i+1 < len(toks) {
				return i + 1
			}
			return -1
		case t == "-" || !strings.HasPrefix(t, "-") && !strings.HasPrefix(t, "+"):
			return i
		}
	}
	return -1
}

// infoOnly reports an interpreter asked only for its version or its
// help (python3 -V, node --version), which runs no program.
func infoOnly(toks []string) bool {
	for _, t := range toks[1:] {
		switch t {
		case "-v", "-V", "--version", "-h", "--help", "-version", "-help":
			return true
		}
	}
	return false
}

// gitConfigRunsCode reports a git command whose global options (the
// words before offset sub) set configuration that may run a command:
// `-c alias.x=!sh …`, `-c core.sshCommand=…`, `-c core.pager=…`,
// `--config-env`, `-c include.path=…`. Only settings known to run
// nothing pass, or a computed one that may be anything.
func gitConfigRunsCode(raw []string, dyn []bool, sub int) bool {
	for i := 1; i < sub && i < len(raw); i++ {
		switch strings.ToLower(raw[i]) {
		case "--config-env":
			return true
		case "-c":
			if raw[i] != "-c" {
				continue // -C dir
			}
			if i+1 >= len(raw) || dyn[i+1] || !gitSafeSetting(raw[i+1]) {
				return true
			}
			i++
		}
		if strings.HasPrefix(strings.ToLower(raw[i]), "--config-env=") {
			return true
		}
	}
	return false
}

// gitSafeSetting reports a `git -c key=value` setting that runs no
// command: identity, colours, advice, output and signing switches, and
// a pager that is cat or less.
func gitSafeSetting(kv string) bool {
	key, val, _ := strings.Cut(kv, "=")
	key = strings.ToLower(key)
	switch key {
	case "core.pager":
		return val == "" || val == "cat" || val == "less" || val == "more"
	case "core.quotepath", "core.autocrlf", "core.safecrlf", "core.filemode", "core.ignorecase",
		"commit.gpgsign", "tag.gpgsign", "pull.rebase", "pull.ff", "push.default", "merge.ff",
		"safe.directory", "protocol.version", "diff.renames", "diff.noprefix", "rebase.autosquash":
		return true
	}
	for _, p := range []string{"user.", "color.", "advice.", "init.", "log.", "format.", "i18n.", "column.", "status.", "blame.", "grep."} {
		if strings.HasPrefix(key, p) {
			return true
		}
	}
	return false
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
