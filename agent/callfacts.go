package agent

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"github.com/guardrun/guardrun"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/guardrun/guardrun/internal/credscan"
	"github.com/guardrun/guardrun/internal/protect"
	"github.com/guardrun/guardrun/interp/policy"
	"github.com/guardrun/guardrun/interp/value"
	"github.com/guardrun/guardrun/taint"
)

// callFacts is what one tool call does to files and the network, as far
// as its input shows: the paths it reads and writes (absolute, globs
// resolved), whether it reaches the network, and for a command tool the
// commands it runs.
type callFacts struct {
	reads, writes []string
	net           bool
	netWhy        string
	cmds          []policy.FactCommand
	// unchecked says why a command line cannot be analysed ("" when it
	// can): the call is refused.
	unchecked string
	// opaque: some command runs code guardrun cannot see into (an
	// interpreter, a script, a build tool).
	opaque bool
	// movedBlind: the line changes to a directory only known when it
	// runs, so its relative paths cannot be placed.
	movedBlind bool
	// sourced are the files the line loads into its shell's environment
	// (`source .env`, `. ./.env`), absolute.
	sourced []string
	// trees are the directories the line reads recursively (archivers,
	// copiers, recursive searches), absolute.
	trees []string
	// inline: some command runs code given on its command line or only
	// known when it runs (policy.CommandFacts.Opaque).
	inline bool
	// secretVar: the line reads an environment variable whose name
	// says it holds a credential ($API_KEY, printenv GITHUB_TOKEN).
	secretVar bool
	// mentions are secret paths spelled inside inline code
	// (open('.env')), absolute.
	mentions []string
	// envDump: the line prints its environment (`env`, `printenv`,
	// `export -p` …), where credentials often live.
	envDump bool
	// credPrint is a command that prints credentials by what it is
	// asked for (`gcloud auth print-access-token`, `aws configure
	// export-credentials`), as written, when another command of the
	// line may send them; "" for none.
	credPrint string
	// opaqueWords are words of the line only known when it runs (as
	// written), opaqueWhy why the first is.
	opaqueWords []string
	opaqueWhy   string
	// deletes are the paths the line deletes, empties or wipes, absolute;
	// deletesOutside is the first of them outside the workspace and the
	// temporary directories ("" when none is).
	deletes        []string
	deletesOutside string
	// writesOutside is the first path the line writes outside the
	// workspace and the temporary directories.
	writesOutside string
	// expanded is the line as bash will run it, when that differs from
	// its text (policy.CommandFacts.Expanded).
	expanded string
	// gitUnknown: a git subcommand neither git's own nor a readable alias.
	gitUnknown string
	// confined: the host runs the line under the kernel floor
	// (Event.Confined), which contains the code it cannot see into.
	confined bool
	// remoteDelete says how the line deletes what lives on the far side
	// of a network command (policy.CommandFacts.RemoteDelete; "" when it
	// does not).
	remoteDelete string
	// runsFetched says how the line runs as code what it downloads ("" when
	// it does not): a file that does not exist before the line runs,
	// named by its downloader and then run, or a download piped into a
	// shell or interpreter, or handed to one as a process substitution
	// (policy.CommandFacts.RunsFetched).
	runsFetched string
	// opaqueTakes: some command guardrun cannot see into may send what
	// it is handed (not a container runtime given an env file).
	opaqueTakes bool
	// ops are the operation labels of line, the command line as
	// written, read from the same parse (nil when a word expanded to
	// other text: the guards' operation then parses the text itself).
	line string
	ops  *policy.OpLabels
}

// shellGetenv reads the environment the agent's shell starts with: the
// host runs its hooks with the environment it runs commands with.
var shellGetenv = os.LookupEnv

// workdirFields are a command tool's fields naming the directory it runs
// in (Gemini's dir_path and directory, Codex's workdir, Cursor's cwd).
var workdirFields = []string{"dir_path", "directory", "workdir", "cwd"}

// commandDir is the directory a command call runs in: its tool's
// working-directory field (relative to the event's cwd) or the cwd.
func commandDir(in map[string]any, cwd string) string {
	for _, f := range workdirFields {
		d, ok := in[f].(string)
		if !ok || d == "" {
			continue
		}
		if !filepath.IsAbs(d) && cwd != "" {
			d = filepath.Join(cwd, d)
		}
		return filepath.Clean(d)
	}
	return cwd
}

// factsOf analyses a call of tool t with the input guards see (line is
// a command tool's command line).
func (e *Engine) factsOf(t toolDef, ev Event, in map[string]any, line string) callFacts {
	f := callFacts{confined: ev.Confined}
	home := homeDir()
	ws := e.workspaceOf(ev)
	var readWords, writeWords, deleteWords []string
	base := firstNonEmpty(ev.Cwd, ws)
	if contains(t.labels, "cmd") {
		base = commandDir(in, base)
		cf := policy.CommandLineFactsIn(line, &policy.ShellEnv{Dir: base, Getenv: shellGetenv})
		f.cmds, f.net, f.netWhy, f.unchecked = cf.Commands, cf.Network, cf.NetworkWhy, cf.Unchecked
		f.opaque = cf.Opaque != ""
		f.inline = cf.Opaque != ""
		f.opaqueWords, f.opaqueWhy, f.expanded = cf.OpaqueWords, cf.OpaqueWhy, cf.Expanded
		f.line, f.ops = line, cf.OpLabels
		deleteWords = cf.Deletes
		f.gitUnknown = cf.GitUnknown
		f.remoteDelete = cf.RemoteDelete
		f.secretVar = (strings.Contains(line, "$") || strings.Contains(line, "printenv")) && secretVarRE().MatchString(line)
		for _, v := range cf.EnvVars {
			// ${!v} and the like: the name read, however it was spelt.
			f.secretVar = f.secretVar || secretVarRE().MatchString("$"+v)
		}
		if f.inline {
			for _, w := range secretMentions(line) {
				f.mentions = append(f.mentions, expandPath(w, firstNonEmpty(ev.Cwd, ws), ws, home)...)
			}
		}
		readWords, writeWords = cf.Reads, cf.Writes
		var sourcedWords []string
		opaqueRead := false
		for _, c := range cf.Commands {
			if !localProgram(c) && !f.inline {
				// A program guardrun does not know to be local, handed a
				// script as one argument (`lftp -e 'put .env; bye'`),
				// may read what the script names: its path-like tokens
				// are read, as a path operand is; so are those spelt in
				// a word known only when the line runs.
				if !opaqueRead {
					for _, w := range cf.OpaqueWords {
						readWords = append(readWords, pathTokens(w)...)
					}
					// What the line writes to its standard input may be
					// such a script too (`sftp host <<< 'put .env'`,
					// `tclsh <<EOF`).
					for _, w := range cf.Stdin {
						readWords = append(readWords, pathTokens(w)...)
					}
				}
				opaqueRead = true
				for _, a := range c.Args {
					// An interpreter's every argument may be code
					// (`julia -e 'read(".env",String)'`).
					if strings.ContainsAny(a, " \t\n;") || policy.Is(c.Program, policy.Interpreter) {
						readWords = append(readWords, pathTokens(a)...)
					}
				}
			}
			if !localProgram(c) && !policy.Is(c.Program, policy.Network) && !c.Runs {
				f.opaque = true
				// A container runtime handed an env file is routine (its
				// output is labelled when it comes back); any other code
				// guardrun cannot see into may send what it is handed.
				f.opaqueTakes = f.opaqueTakes || !policy.Is(c.Program, policy.EnvConsumer)
			}
			switch c.Program {
			case "source", ".":
				for _, a := range c.Args {
					if a != "" && !strings.HasPrefix(a, "-") {
						sourcedWords = append(sourcedWords, a)
						break
					}
				}
			case "mv":
				// A move changes its sources too: they are gone.
				for _, a := range c.Args {
					if a != "" && !strings.HasPrefix(a, "-") {
						writeWords = append(writeWords, a)
					}
				}
			case "tar", "zip", "7z", "7za", "rar", "rsync", "scp", "sftp", "rclone", "cp", "grep", "egrep", "rg", "ag", "du", "cpio", "pax":
				for _, a := range c.Args {
					if a != "" && !strings.HasPrefix(a, "-") {
						for _, p := range expandPath(a, base, ws, home) {
							f.trees = append(f.trees, p)
						}
					}
				}
				// A search given no directory searches the working
				// directory (grep when recursive, rg and ag always).
				search := c.Program == "rg" || c.Program == "ag" || (c.Program == "grep" || c.Program == "egrep") && recursive(c.Args)
				if search && len(operandsOf(c.Args)) <= 1 && base != "" {
					f.trees = append(f.trees, base)
				}
			case "docker", "podman", "nerdctl":
				// A container runs outside any sandbox of this line's
				// (its runtime's daemon starts it) and reads the host
				// directories mounted into it: each is a tree read, and
				// unless it has no network it may send what it reads.
				if c.Sub == "run" || c.Sub == "create" {
					srcs := mountSources(c.Args)
					for _, src := range srcs {
						f.trees = append(f.trees, expandPath(src, base, ws, home)...)
					}
					if len(srcs) > 0 && !noNetwork(c.Args) {
						f.opaqueTakes = true
					}
				}
			case "env", "printenv":
				f.envDump = f.envDump || onlyOptions(c.Args)
			default:
				if f.credPrint == "" {
					// Names first: othersSend compares every command.
					if w := credentialCommand(c); w != "" && othersSend(cf.Commands, c) {
						f.credPrint = w
					}
				}
			case "export", "declare", "typeset", "set":
				f.envDump = f.envDump || len(c.Args) == 0 || slices.Contains(c.Args, "-p") || slices.Contains(c.Args, "-x")
			}
		}
		f.runsFetched = cmp.Or(cf.RunsFetched, runsFetched(cf.Commands, base, ws, home))
		for _, w := range sourcedWords {
			// A sourced file goes to the shell's environment, not to a
			// command's input: the secret-env mark stands for it.
			if i := slices.Index(readWords, w); i >= 0 {
				readWords = slices.Delete(slices.Clone(readWords), i, i+1)
			}
			f.sourced = append(f.sourced, expandPath(w, base, ws, home)...)
		}
	} else {
		words := toolPaths(in)
		switch {
		case t.restricting && hasPrefixIn(t.labels, "fs:w"):
			// A workspace policy's declaration may add checks, not take
			// away the reads: the paths are read and written.
			readWords, writeWords = words, words
			f.trees = searchTrees(ev.Tool, words, base, ws, home)
		case hasPrefixIn(t.labels, "fs:w") || isPatchTool(in):
			writeWords = words
		default:
			readWords = words
			f.trees = searchTrees(ev.Tool, words, base, ws, home)
		}
	}
	// A relative path is taken from the working directory and from every
	// directory the line changes to (`cd src && cp a ../x`): which
	// command a word belongs to is not known, so each is tried.
	bases := []string{base}
	for _, c := range f.cmds {
		if c.Program != "cd" && c.Program != "pushd" {
			continue
		}
		target := ""
		for _, a := range c.Args {
			if a != "" && !strings.HasPrefix(a, "-") {
				target = a
				break
			}
		}
		if target == "" || target == "-" {
			f.movedBlind = true
			continue
		}
		for _, b := range bases {
			bases = append(bases, expandPath(target, b, ws, home)[0])
			if len(bases) > 8 {
				break
			}
		}
	}
	if f.reads == nil && len(readWords) > 0 {
		// A word is most often one path: one allocation for them.
		f.reads = make([]string, 0, len(readWords))
	}
	for _, w := range readWords {
		f.reads = appendExpandFrom(f.reads, w, bases, ws, home)
	}
	for _, w := range writeWords {
		f.writes = appendExpandFrom(f.writes, w, bases, ws, home)
	}
	for _, w := range deleteWords {
		f.deletes = appendExpandFrom(f.deletes, w, bases, ws, home)
	}
	f.deletesOutside = outsideWorkspace(f.deletes, ws, base)
	var written []string
	for _, p := range f.writes {
		if !strings.HasPrefix(p, "/dev/") {
			written = append(written, p)
		}
	}
	f.writesOutside = outsideWorkspace(written, ws, base)
	return f
}

// searchTools print the lines of the files under a directory they are
// given (or the working directory): what they print carries the labels
// of the trees they search.
var searchTools = map[string]bool{"Grep": true, "grep": true, "search_file_content": true, "grep_search": true}

// searchTrees are the directories a file tool's call reads recursively:
// a search tool's directory path, or its working directory when it
// names none.
func searchTrees(tool string, words []string, base, ws, home string) []string {
	if !searchTools[tool] {
		return nil
	}
	if len(words) == 0 {
		if base == "" {
			return nil
		}
		return []string{base}
	}
	var out []string
	for _, w := range words {
		for _, p := range expandPath(w, base, ws, home) {
			if fi, err := os.Stat(p); err == nil && fi.IsDir() {
				out = append(out, p)
			}
		}
	}
	return out
}

// outsideWorkspace is the first path of ps outside the workspace and the
// temporary directories ("" when none is).
func outsideWorkspace(ps []string, ws, cwd string) string {
	work := ws
	switch {
	case ws != "":
	case cwd == "":
		// Where the call runs is not known: nothing to measure against.
		return ""
	case cwd != "/" && cwd != homeDir():
		work = cwd
	}
	h := homeDir()
	under := func(p, r string) bool { return r != "" && strings.HasPrefix(p, filepath.Clean(r)+"/") }
	for _, p := range ps {
		if !filepath.IsAbs(p) {
			continue
		}
		switch {
		case p == "/" || h != "" && (p == h || strings.HasPrefix(h, p+"/")) || ws != "" && strings.HasPrefix(ws, p+"/"):
			// The home directory, the workspace's parents: wherever they are.
			return p
		case under(p, work):
		case under(p, h):
			// The user's files, even where home is under a temporary
			// directory.
			return p
		case under(p, os.TempDir()) || under(p, "/tmp") || under(p, "/var/tmp"):
		default:
			return p
		}
	}
	return ""
}

// appendExpandFrom appends to dst the paths of w expanded (expandPath)
// from each of several working directories (once for a path that does
// not depend on one).
func appendExpandFrom(dst []string, w string, bases []string, ws, home string) []string {
	start := len(dst)
	dst = appendExpandPath(dst, w, bases[0], ws, home)
	if len(dst) == start || filepath.IsAbs(strings.TrimSpace(w)) || strings.HasPrefix(w, "~") || strings.HasPrefix(w, "$") {
		return dst
	}
	for _, b := range bases[1:] {
		dst = appendExpandPath(dst, w, b, ws, home)
	}
	return dst
}

// secretVarRE matches a reference to an environment variable whose name
// says it holds a credential: $API_KEY, ${GITHUB_TOKEN},
// printenv DB_PASSWORD.
var secretVarRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)(\$\{?|printenv\s+)[A-Za-z0-9_]*(KEY|TOKEN|SECRET|PASSW|CREDENTIAL|AUTH)[A-Za-z0-9_]*`)
})

// codeSeparator splits inline code into the words a path may be.
// othersSend reports whether a command of the line other than c may
// send what it is handed: a program of the network, or one guardrun does
// not know to be local. (`gcloud auth print-access-token` alone prints
// the token to the agent; piped to `curl`, or a `$(…)` in its header,
// it is sent.)
func othersSend(cmds []policy.FactCommand, c policy.FactCommand) bool {
	text := func(c policy.FactCommand) string { return strings.Join(append([]string{c.Program}, c.Args...), " ") }
	self := text(c)
	for _, o := range cmds {
		if text(o) == self {
			// c itself, or c's words read as one (`env -S 'gh auth token'`).
			continue
		}
		if policy.Is(o.Program, policy.Network) || !localProgram(o) && !o.Runs {
			return true
		}
	}
	return false
}

// credentialNouns name what a command asked for them prints.
var credentialNouns = map[string]bool{"token": true, "tokens": true, "credential": true, "credentials": true, "password": true,
	"passwords": true, "passwd": true, "secret": true, "secrets": true, "apikey": true, "apikeys": true}

// credentialCommand returns c as written when its program or one of its
// first two operands, shaped as a subcommand, names a credential
// (`gh auth token`, `az account get-access-token`, `kubectl get
// secret`, `heroku auth:token`), else "".
func credentialCommand(c policy.FactCommand) string {
	var buf [3]string
	words := append(buf[:0], c.Program)
	for _, a := range c.Args {
		if len(words) == 3 {
			break
		}
		if a == "" || strings.HasPrefix(a, "-") {
			continue
		}
		words = append(words, a)
	}
	for _, w := range words {
		if w == "" || strings.ContainsAny(w, " /\t\n=@") {
			continue
		}
		for _, part := range strings.FieldsFunc(strings.ToLower(w), func(r rune) bool { return r == '-' || r == '_' || r == ':' || r == '.' }) {
			if credentialNouns[part] {
				return strings.TrimSpace(c.Program + " " + strings.Join(words[1:], " "))
			}
		}
	}
	return ""
}

// secretMentions are the secret paths text spells as tokens of code.
func secretMentions(text string) []string {
	var out []string
	for _, w := range pathTokens(text) {
		if IsSecretPath(w) {
			out = append(out, w)
		}
	}
	return out
}

// pathTokens are the tokens of code, or of a word guardrun could not
// expand (`${x:-.env}`, `"put .env; bye"`), that may name a file: those
// with a dot or a slash.
func pathTokens(text string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(text, func(r rune) bool { return r == ':' || codeSeparator(r) }) {
		if w = strings.TrimLeft(w, "-?"); strings.ContainsAny(w, "./") {
			out = append(out, w)
		}
	}
	return out
}

// intoDirs are the destinations of the line's moves and copies (mv, cp,
// install, ln) that are existing directories, each with the entries the
// command adds to it (the destination joined with each source's name,
// or the destination itself for a directory's contents): each is
// checked as what it is or holds.
func intoDirs(cmds []policy.FactCommand, cwd, ws string) map[string][]string {
	var out map[string][]string
	for _, c := range cmds {
		switch c.Program {
		case "mv", "cp", "install", "ln":
		default:
			continue
		}
		ops := operandsOf(c.Args)
		if len(ops) < 2 || slices.ContainsFunc(c.Args, func(a string) bool {
			return a == "-t" || a == "-T" || strings.HasPrefix(a, "--target-directory") || a == "--no-target-directory"
		}) {
			continue
		}
		dests := expandPath(ops[len(ops)-1], cwd, ws, homeDir())
		if len(dests) != 1 {
			continue
		}
		dest := dests[0]
		if fi, err := os.Stat(dest); err != nil || !fi.IsDir() {
			continue
		}
		var entries []string
		for _, src := range ops[:len(ops)-1] {
			for _, p := range expandPath(src, cwd, ws, homeDir()) {
				if b := filepath.Base(p); b == "." || b == ".." || b == "/" || strings.HasSuffix(src, "/.") || strings.HasSuffix(src, "/") {
					// A directory's contents (`cp -r dir/. dest`): what
					// it writes into dest is not known by name.
					entries = append(entries, dest)
					continue
				}
				entries = append(entries, filepath.Join(dest, filepath.Base(p)))
			}
		}
		if out == nil {
			out = map[string][]string{}
		}
		out[dest] = append(out[dest], entries...)
	}
	return out
}

// runsFetched is a file the commands run as code that a downloader of
// the line (kind network) names and that does not exist yet: `curl -sLO
// URL/i.sh && ./i.sh`, `aria2c -o i.sh URL && bash i.sh`, whatever the
// downloader's output flag. A file that is not there before the line
// runs, named by its download, is what it downloads. "" when none.
func runsFetched(cmds []policy.FactCommand, base, ws, home string) string {
	return fetchedRun(cmds, func(code string) bool {
		for _, p := range expandPath(code, base, ws, home) {
			if _, err := os.Lstat(p); errors.Is(err, fs.ErrNotExist) {
				return true
			}
		}
		return false
	})
}

// fetchedRun is runsFetched with the test of a file being new to the
// line given: fresh(code) reports that the file code names is not there
// before the line runs.
func fetchedRun(cmds []policy.FactCommand, fresh func(code string) bool) string {
	var got []string
	for _, c := range cmds {
		if policy.Is(c.Program, policy.Network) {
			got = append(got, c.Args...)
		}
	}
	if len(got) == 0 {
		return ""
	}
	// named: a downloader's word names the file (its output flag's
	// value, or the URL it saves under its own name).
	named := func(code string) bool {
		b := filepath.Base(code)
		for _, a := range got {
			if a == code || a == b || strings.HasSuffix(a, "/"+b) || strings.HasSuffix(a, "="+code) || strings.HasSuffix(a, "="+b) {
				return true
			}
		}
		return false
	}
	for _, c := range cmds {
		var code string
		switch {
		case c.Path != "":
			code = c.Path
		case c.Program == "source" || c.Program == ".":
			if ops := operandsOf(c.Args); len(ops) > 0 {
				code = ops[0]
			}
		case policy.Is(c.Program, policy.Shell) && c.Program != "watch" || scriptInterpreter(c.Program):
			for i := 0; i < len(c.Args); i++ {
				a := c.Args[i]
				if a == "-c" || a == "-e" || a == "-m" || a == "-r" || a == "-" || a == "--" {
					break
				}
				if a == "-o" || a == "-O" || a == "+o" || a == "+O" {
					i++ // a shell option's name
					continue
				}
				if a != "" && !strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "+") {
					code = a
					break
				}
			}
		}
		if code == "" || !named(code) {
			continue
		}
		if fresh(code) {
			return code
		}
	}
	return ""
}

// scriptInterpreter reports an interpreter whose first operand is the
// script file it runs.
func scriptInterpreter(prog string) bool {
	switch strings.TrimRight(prog, "0123456789.") {
	case "python", "perl", "ruby", "node", "nodejs", "php", "lua", "bun", "deno", "tclsh", "pwsh", "rscript", "julia":
		return true
	}
	return false
}

// mountSources are the host directories a container command's options
// mount (`-v SRC:DST`, `--volume=SRC:DST`, `--mount
// type=bind,source=SRC,…`); named volumes (no slash, ~ or .) are not
// host paths.
func mountSources(args []string) []string {
	var out []string
	host := func(src string) {
		if strings.HasPrefix(src, "/") || strings.HasPrefix(src, ".") || strings.HasPrefix(src, "~") || strings.HasPrefix(src, "$") {
			out = append(out, src)
		}
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		var v string
		switch {
		case a == "-v" || a == "--volume" || a == "--mount":
			if i+1 < len(args) {
				v = args[i+1]
				i++
			}
		case strings.HasPrefix(a, "--volume="), strings.HasPrefix(a, "--mount="):
			_, v, _ = strings.Cut(a, "=")
		case strings.HasPrefix(a, "-v") && len(a) > 2:
			v = a[2:]
		default:
			continue
		}
		if a == "--mount" || strings.HasPrefix(a, "--mount=") {
			for _, kv := range strings.Split(v, ",") {
				k, val, _ := strings.Cut(kv, "=")
				if k == "source" || k == "src" {
					host(val)
				}
			}
			continue
		}
		src, _, _ := strings.Cut(v, ":")
		host(src)
	}
	return out
}

// noNetwork reports a container command given no network
// (`--network none`, `--net=none`).
func noNetwork(args []string) bool {
	for i, a := range args {
		switch {
		case a == "--network=none" || a == "--net=none":
			return true
		case (a == "--network" || a == "--net") && i+1 < len(args) && args[i+1] == "none":
			return true
		}
	}
	return false
}

// codeSeparator ends a path-like token in code: spaces, quotes,
// brackets and the shell's and curl's file markers (`@.env`, `<.env`).
func codeSeparator(r rune) bool {
	return strings.ContainsRune(" \t\n'\"()[]{},;=+`@<>|&", r)
}

// onlyOptions reports whether args hold no operand (a program to run).
func onlyOptions(args []string) bool {
	for _, a := range args {
		if a != "" && !strings.HasPrefix(a, "-") {
			return false
		}
	}
	return true
}

// isPatchTool reports whether an input holds a patch (its files are
// written).
func isPatchTool(in map[string]any) bool {
	for _, f := range patchFields {
		if s, ok := in[f].(string); ok && strings.Contains(s, "*** ") {
			return true
		}
	}
	return false
}

// recursive reports grep's -r/-R (or --recursive) among args.
func recursive(args []string) bool {
	for _, a := range args {
		if a == "--recursive" || a == "--dereference-recursive" ||
			len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.ContainsAny(a[1:], "rR") {
			return true
		}
	}
	return false
}

// operandsOf are the words of args not starting with '-'.
func operandsOf(args []string) []string {
	var out []string
	for _, a := range args {
		if a != "" && !strings.HasPrefix(a, "-") {
			out = append(out, a)
		}
	}
	return out
}

// localProgram reports whether a command runs only local, data-only code.
func localProgram(c policy.FactCommand) bool {
	return c.Program != "" && policy.Is(c.Program, policy.Local)
}

// readLabels are the labels a call carries for the files it names: a
// secret path's `secret`, and the labels of a file the session wrote
// labelled data into (Session.Files); with dirs, also `secret` for a
// directory the line reads recursively that holds secrets.
func readLabels(s *Session, f callFacts, dirs bool) (labels []string, why string) {
	for _, p := range f.mentions {
		labels = appendNew(labels, "secret")
		why = p
	}
	if dirs {
		for _, p := range f.trees {
			if holdsSecrets(p) {
				labels = appendNew(labels, "secret")
				why = p
			}
		}
	}
	for _, p := range f.reads {
		if IsSecretPath(p) {
			labels = appendNew(labels, "secret")
			why = p
		} else if alias := secretAlias(p); alias != "" {
			labels = appendNew(labels, "secret")
			why = p + " (" + alias + ")"
		}
		if l, ok := s.Files[p]; ok && l != "" {
			labels = appendNew(labels, strings.Split(l, ",")...)
			why = p
		}
	}
	return labels, why
}

// maxDirScan bounds the entries holdsSecrets reads of one directory.
const maxDirScan = 512

// holdsSecrets reports whether p is a directory a recursive read of
// which takes credentials: the home directory or one above it, or a
// directory with a secret file or directory directly in it (a
// repository's root holding .env).
func holdsSecrets(p string) bool {
	home := homeDir()
	if home != "" && (p == home || strings.HasPrefix(home, strings.TrimSuffix(p, "/")+"/")) {
		return true
	}
	d, err := os.Open(p)
	if err != nil {
		return false
	}
	defer d.Close()
	names, _ := d.Readdirnames(maxDirScan)
	for _, n := range names {
		if IsSecretPath(filepath.Join(p, n)) {
			return true
		}
		if fi, err := os.Lstat(filepath.Join(p, n)); err == nil && fi.IsDir() && IsSecretPath(filepath.Join(p, n)+"/x") {
			return true
		}
	}
	return false
}

// maxFiles bounds Session.Files; past it, the labels of a further file
// become context-wide (never dropped).
const maxFiles = 4096

// rememberWrites records, for a call the policies let run, that every
// file it writes now holds what its input carried: a later call naming
// one of those files carries the same confidentiality labels.
func (e *Engine) rememberWrites(s *Session, ev Event, f callFacts, labels []string) {
	var conf []string
	for _, l := range labels {
		if !isIntegrity(l) && !taint.IsSource(l) {
			conf = append(conf, l)
		}
	}
	if len(conf) == 0 || len(f.writes) == 0 {
		return
	}
	for _, p := range f.writes {
		if deviceFiles[p] || strings.HasPrefix(p, "/dev/") {
			continue
		}
		if s.Files == nil {
			s.Files = map[string]string{}
		}
		if _, ok := s.Files[p]; !ok && len(s.Files) >= maxFiles {
			i := s.addOrigin(Origin{Seq: s.Seq, Event: ev.Kind, Tool: ev.Tool, CallID: ev.CallID, Labels: conf, Why: "wrote labelled data into more files than the session keeps"}, e.cfg.Limits)
			s.addContext(i)
			return
		}
		old := s.Files[p]
		merged := conf
		if old != "" {
			merged = appendNew(strings.Split(old, ","), conf...)
		}
		s.Files[p] = strings.Join(merged, ",")
	}
}

// selfCommand reports a command that runs guardrun's own approval or
// set-up commands (trust, init, a revocation): only the user runs those.
// `guardrun trust --list` only reads.
func selfCommand(cmds []policy.FactCommand) (string, bool) {
	for _, c := range cmds {
		if !strings.HasPrefix(c.Program, "guardrun") {
			continue
		}
		listing := slices.Contains(c.Args, "--list")
		for _, a := range c.Args {
			switch a {
			case "trust":
				if !listing || slices.Contains(c.Args, "--revoke") || slices.Contains(c.Args, "--user") {
					return c.Program + " " + a, true
				}
			case "init", "--revoke", "untrust":
				return c.Program + " " + a, true
			}
		}
	}
	return "", false
}

// protectedNames are names of guardrun's files and the hosts' hook
// settings, and of the directories holding them.
var protectedNames = []string{"guardrun", "guardrun-hook", ".guardrun", "settings.json", "settings.local.json", "hooks.json",
	"config.toml", "trust.json", "policy.guard", "exfil.guard", "sessions", "sessions.seen", "x.journal", "decisions.jsonl",
	".claude", ".gemini", ".cursor", ".codex", ".config", ".local", ".cache", "state", "share"}

// findSparesProtected reports whether a find command only acts on
// entries whose -name/-iname patterns cannot match any protected name
// (`find . -name __pycache__ -exec rm -rf {} +`): its search roots then
// hold protected paths it does not touch.
func findSparesProtected(args []string) bool {
	named := false
	for i := 0; i+1 < len(args); i++ {
		switch args[i] {
		case "-name", "-iname":
			pat := args[i+1]
			if pat == "" {
				return false
			}
			named = true
			for _, n := range protectedNames {
				if ok, _ := filepath.Match(strings.ToLower(pat), n); ok {
					return false
				}
			}
		case "-path", "-ipath", "-regex", "-iregex", "-wholename", "-o", "-or", "-not", "!":
			return false
		}
	}
	return named
}

// protectedSet is the protected path set for workspace ws, built once
// per engine and workspace.
func (e *Engine) protectedSet(ws string) protect.Set {
	if v, ok := e.protected.Load(ws); ok {
		return v.(protect.Set)
	}
	set := protect.ForAgent(os.Getenv, homeDir(), ws).Without(e.protectedExcept...)
	e.protected.Store(ws, set)
	return set
}

// mentionWords are words one of which every spelling of a protected
// root holds (protect.Set.Mentions): guardrun's own directories and
// programs, the hosts' settings, the XDG parents named on their own, an
// XDG variable.
var mentionWords = []string{"guardrun", ".claude", ".gemini", ".cursor", ".codex", ".config", ".local", ".cache", "settings",
	"hooks.json", "config.toml", "xdg_", "codex_home", "claude_config"}

// globNamesProtected reports whether a glob pattern may match the name
// of a protected file or directory.
func globNamesProtected(pat string) bool {
	for _, n := range protectedNames {
		if ok, err := filepath.Match(pat, n); ok || err != nil {
			return true
		}
	}
	return false
}

// mayMention reports whether text could spell a protected root: a cheap
// test before the protected set is built.
func mayMention(text string) bool {
	t := strings.ToLower(text)
	for _, w := range mentionWords {
		if strings.Contains(t, w) {
			return true
		}
	}
	return false
}

// onlyFound reports whether a command's operands are all find's `{}`.
func onlyFound(args []string) bool {
	n := 0
	for _, a := range args {
		if a == "{}" {
			n++
		} else if a == "" || !strings.HasPrefix(a, "-") && a != "+" && a != ";" {
			return false
		}
	}
	return n > 0
}

// protectedWrite is why a call must not run because it would write
// guardrun's own files or an agent's hook settings ("" when it would
// not): a path it writes is protected, it runs guardrun's trust or init,
// or it runs code whose writes cannot be seen while spelling a
// protected path. key is what the user's policy names to let the agent
// do it (protected.except): the protected root, the guardrun command,
// guardrun's program name; the roots it names are left out of the
// protected set (protectedSet), the others are checked here.
func (e *Engine) protectedWrite(ev Event, f callFacts, line string) (why, key string) {
	if what, ok := selfCommand(f.cmds); ok && !contains(e.protectedExcept, what) {
		return "it runs `" + what + "`, which only the user may run", what
	}
	unseen := line != "" && (f.unchecked != "" || f.opaque || f.movedBlind)
	for _, c := range f.cmds {
		if c.Program == "" || policy.Is(c.Program, policy.Interpreter) {
			unseen = line != ""
		}
	}
	if unseen && !mayMention(line) {
		// Every spelling Mentions knows holds one of these words.
		unseen = false
	}
	if len(f.writes) == 0 && !unseen {
		// Nothing written that the analysis sees, and nothing it cannot
		// see: the protected set (built once, with file system look-ups)
		// is not needed.
		return "", ""
	}
	set := e.protectedSet(e.workspaceOf(ev))
	covers := set.Inside
	findSpares := false
	for _, c := range f.cmds {
		findSpares = findSpares || c.Program == "find" && findSparesProtected(c.Args)
	}
	for _, c := range f.cmds {
		switch {
		case !policy.Is(c.Program, policy.TreeRemover):
		case c.Program == "find" && findSparesProtected(c.Args):
		case findSpares && onlyFound(c.Args):
			// find … -exec rm -rf {} +: rm takes what find found.
		default:
			// A delete or move of a directory takes what it holds.
			covers = set.Covers
		}
	}
	into := intoDirs(f.cmds, firstNonEmpty(ev.Cwd, e.workspaceOf(ev)), e.workspaceOf(ev))
	for _, p := range f.writes {
		if entries, ok := into[p]; ok {
			// A move or copy into a directory writes the entries it
			// adds, not the directory (`mv ~/Downloads/a.txt .`).
			for _, q := range entries {
				if root, ok := set.Covers(q, ev.Cwd); ok {
					return "it would write " + q + ", which is or holds " + root, root
				}
			}
			continue
		}
		if root, ok := covers(p, ev.Cwd); ok {
			return "it would write or delete " + p + ", which is or holds " + root, root
		}
		if pat := filepath.Base(p); strings.ContainsAny(pat, "*?[") && globNamesProtected(pat) {
			// A glob that matched nothing yet (rm -rf dir/*) takes what the
			// directory will hold: a protected entry, if its pattern can
			// match one's name.
			if root, ok := set.Covers(filepath.Dir(p), ev.Cwd); ok {
				return "it would write or delete " + p + ", which is or holds " + root, root
			}
		}
		if root, ok := set.Linked(p, ev.Cwd); ok {
			return "it would write " + p + ", a hard link to a file of " + root, root
		}
		if b := filepath.Base(p); (b == "guardrun" || b == "guardrun-hook") && !contains(e.protectedExcept, b) {
			return "it would write " + p + " (guardrun's program)", b
		}
	}
	if unseen {
		if root, ok := set.Mentions(line); ok {
			return "it runs code whose writes guardrun cannot see and names " + root, root
		}
	}
	return "", ""
}

// callLabels gives the inputs of a call the labels they carry beyond
// what the session's fingerprints give: when the call can send data
// (sends), `secret` on the field that names a secret file (a command
// tool's command, a file tool's path fields: a file named is a file
// read) or prints the environment; and `secret` on any field holding a
// credential-shaped value. read is readLabels(s, facts, true), when
// the call sends (ok): the caller need not read the files again.
func (e *Engine) callLabels(s *Session, ev Event, fl *flow, facts callFacts, sends bool) (read []string, ok bool) {
	var named []string
	why := ""
	if sends {
		// A file named is a file read, and a call that can send what it
		// reads sends it. (A local program handed .env, `docker run
		// --env-file .env`, is routine: its output is labelled when it
		// comes back.)
		var p string
		named, p = readLabels(s, facts, true)
		read, ok = named, true
		if p != "" {
			why = "names " + p
		}
		if facts.envDump {
			named = appendNew(named, "secret")
			why = "prints the environment"
		}
		if facts.credPrint != "" {
			named = appendNew(named, "secret")
			why = "runs `" + facts.credPrint + "`, which prints credentials"
		}
	}
	var added []string
	for i, v := range fl.vars {
		name := fl.params[i]
		if v == nil {
			continue
		}
		var extra []string
		if len(named) > 0 && (name == "command" || contains(toolPathFields, name) || contains(patchFields, name)) {
			extra = named
		} else if credscan.Has(value.Text(v.Data)) {
			extra = []string{"secret"}
			if why == "" {
				why = "holds a credential-shaped value"
			}
		}
		if len(extra) == 0 {
			continue
		}
		c := *v
		c.Security = c.Security.Merge(descriptor(extra))
		fl.vars[i] = &c
		added = appendNew(added, extra...)
	}
	if len(added) > 0 {
		fl.labels = appendNew(fl.labels, added...)
		fl.origins = append(fl.origins, Origin{Seq: s.Seq, Event: ev.Kind, Tool: ev.Tool, CallID: ev.CallID, Labels: added, Why: why})
	}
	return read, ok
}

// mark gives a call's operation the labels its facts imply: `net:w`
// when it reaches the network, `cmd:opaque` when it runs code guardrun
// cannot see into.
func (f callFacts) mark(op *guardrun.OperationContext) {
	op.Effects = f.effects
	op.Labels = f.markLabels(op.Labels)
}

// markLabels are labels with the marks of the call's facts (mark)
// appended: labels itself when there are none, else a new list (labels
// may be shared).
func (f *callFacts) markLabels(labels []string) []string {
	secretEnv := f.secretVar
	for _, p := range f.sourced {
		secretEnv = secretEnv || IsSecretPath(p)
	}
	opaqueSend := f.net && f.sendsOpaque()
	secretRead := false
	for _, p := range f.reads {
		secretRead = secretRead || IsSecretPath(p)
	}
	// Code the line runs that guardrun cannot see into is contained
	// when the host runs the line under the kernel floor (offline,
	// without secrets or guardrun's files): it alone is then no
	// consequential effect. Inline code is, confined or not: it may be
	// the fetched content itself.
	opaqueUncontained := f.opaque && !f.confined
	consequential := f.runsFetched != "" || f.remoteDelete != "" || f.net || opaqueUncontained || secretEnv || f.inline || f.gitUnknown != "" || f.deletesOutside != "" || secretRead || f.writesOutside != "" || len(f.deletes) > 0
	if !consequential && !f.opaque {
		return labels
	}
	// Room for every mark below: one allocation.
	labels = append(make([]string, 0, len(labels)+8), labels...)
	if secretEnv {
		labels = append(labels, "cmd:secret-env")
	}
	if f.inline {
		labels = append(labels, "cmd:inline-code")
	}
	if f.net && !contains(labels, "net:w") {
		labels = append(labels, "net:w")
	}
	if f.opaque {
		labels = append(labels, "cmd:opaque")
	}
	if opaqueSend {
		labels = append(labels, "cmd:opaque-send")
	}
	if f.gitUnknown != "" {
		labels = append(labels, "cmd:git-unknown")
	}
	if f.deletesOutside != "" {
		labels = append(labels, "cmd:delete-outside")
	}
	if f.runsFetched != "" {
		labels = append(labels, "cmd:runs-download")
	}
	if f.remoteDelete != "" {
		labels = append(labels, "cmd:remote-delete")
	}
	if consequential {
		// Effects that matter when what runs may have been steered.
		labels = append(labels, "cmd:consequential")
	}
	return labels
}

// effects is the call's `@mx.op.effects`: what it will read, write and
// delete (absolute paths, as bash expands the line), whether it may
// reach the network, the programs it runs, whether it runs code whose
// text guardrun cannot see (and why), and the first write and delete
// outside the workspace and temp. docs/reference.md lists the fields.
func (f callFacts) effects() *value.Object {
	o := value.NewObject()
	list := func(xs []string) []any {
		out := make([]any, 0, len(xs))
		for _, x := range xs {
			out = append(out, x)
		}
		return out
	}
	var secrets, programs []string
	for _, p := range f.reads {
		if IsSecretPath(p) && !slices.Contains(secrets, p) {
			secrets = append(secrets, p)
		}
	}
	for _, p := range append(append([]string(nil), f.sourced...), f.mentions...) {
		if IsSecretPath(p) && !slices.Contains(secrets, p) {
			secrets = append(secrets, p)
		}
	}
	for _, c := range f.cmds {
		if c.Program != "" && !slices.Contains(programs, c.Program) {
			programs = append(programs, c.Program)
		}
	}
	opaque := f.opaqueWhy
	if opaque == "" && f.inline {
		opaque = "inline code"
	}
	if opaque == "" && f.opaque {
		opaque = "code guardrun cannot see into"
	}
	o.Set("reads", list(f.reads))
	o.Set("writes", list(f.writes))
	o.Set("deletes", list(f.deletes))
	o.Set("secrets", list(secrets))
	o.Set("network", f.net)
	o.Set("networkWhy", f.netWhy)
	o.Set("programs", list(programs))
	o.Set("code", f.opaque || f.inline)
	o.Set("opaque", opaque)
	o.Set("writesOutside", f.writesOutside)
	o.Set("deletesOutside", f.deletesOutside)
	o.Set("gitUnknown", f.gitUnknown)
	o.Set("expanded", f.expanded)
	return o
}

// maxShellWrites bounds the files of one command line the policies are
// asked about as writes; a line writing more is asked about its first
// ones and refused beyond them.
const maxShellWrites = 16

// deviceFiles are written by ordinary commands without touching a file.
var deviceFiles = map[string]bool{"/dev/null": true, "/dev/stdout": true, "/dev/stderr": true, "/dev/tty": true, "/dev/zero": true}

// shellWrites decides each file a command line writes as the write it
// is: an operation labelled fs:w whose input is {file_path}, the shape
// of a Write tool call, so one set of rules (system paths, scope, stale
// files) covers the Write tool and the shell alike. The strongest
// verdict is returned, its reason naming the file.
func (e *Engine) shellWrites(ctx context.Context, s *Session, ev Event, facts callFacts, try int) (verdict, bool) {
	var best verdict
	n := 0
	for _, p := range facts.writes {
		if deviceFiles[p] || strings.HasPrefix(p, "/dev/fd/") || strings.HasPrefix(p, "/proc/self/fd/") ||
			strings.HasPrefix(p, "/dev/tcp/") || strings.HasPrefix(p, "/dev/udp/") {
			// Bash's network redirections are sends (net:w), not writes.
			continue
		}
		if n++; n > maxShellWrites {
			return verdict{Verdict: guardrun.Verdict{Action: guardrun.Deny, Class: guardrun.ClassError,
				Reason: fmt.Sprintf("the call writes more than %d files; split it so each write can be checked", maxShellWrites)}}, true
		}
		in := map[string]any{"file_path": p}
		vars, params, _, _ := e.inputs(s, in)
		opFor := func([]*value.Variable) *guardrun.OperationContext {
			return guardrun.ToolCall{Name: ev.Tool, Labels: []string{"fs:w"}, Params: params}.Operation()
		}
		v, _, _ := e.run(ctx, opFor, vars, nil, try, func() *value.Object { return e.toolsObject(s) }, func() *value.Variable { return e.sessionValue(s, ev) }, e.workspaceOf(ev))
		if rankOf(v.Action) > rankOf(best.Action) {
			v.Reason = "the call writes " + p + ": " + v.Reason
			best = v
		}
		if v.Action == guardrun.Deny {
			break
		}
	}
	return best, best.Action != guardrun.Allow
}

// recordShellReads keeps, after a shell command that printed files
// (`cat src/a.go`, Codex's way of reading), the SHA-256 of each as it now
// is, as a Read tool's call would (stale-write protection).
func (e *Engine) recordShellReads(s *Session, ev Event, f callFacts) {
	if ev.Hashes != nil {
		e.recordLogged(s, ev)
		return
	}
	base := firstNonEmpty(ev.Cwd, e.workspaceOf(ev))
	for _, c := range f.cmds {
		if !policy.Is(c.Program, policy.Reader) {
			continue
		}
		for _, a := range c.Args {
			if a == "" || strings.HasPrefix(a, "-") || strings.ContainsAny(a, "*?[") {
				continue
			}
			if fi, err := os.Stat(filepath.Join(base, a)); err != nil || !fi.Mode().IsRegular() {
				if !filepath.IsAbs(a) {
					continue
				}
				if fi, err := os.Stat(a); err != nil || !fi.Mode().IsRegular() {
					continue
				}
			}
			e.recordPath(s, Event{Cwd: base, Session: ev.Session, Kind: ev.Kind, Tool: ev.Tool}, a)
		}
	}
}

// fetches reports a line that runs a program whose work is the
// network (policy.Network: curl, wget, gh, ssh…): what it prints came
// from elsewhere.
func (f callFacts) fetches() bool {
	for _, c := range f.cmds {
		if policy.Is(c.Program, policy.Network) {
			return true
		}
	}
	return false
}

// sendsOpaque reports a line that reaches the network with a word only
// known when it runs (a file name in a variable, what xargs reads,
// find's {}): what it sends cannot be told. A URL spelt with a variable
// is not one: the commands that compute it are decided on their own.
func (f callFacts) sendsOpaque() bool {
	for _, w := range f.opaqueWords {
		if !strings.Contains(w, "://") {
			return true
		}
	}
	return false
}

// maxTwinSize and minTwinSize bound the files secretAlias compares by
// content: two tiny files alike are not a copy.
const (
	maxTwinSize = 64 << 10
	minTwinSize = 16
)

// secretAlias says how p is a secret file under another name ("" when
// it is not): a symbolic link to one, a hard link to one, or a copy of
// a secret file beside it or at its repository's root (same content).
func secretAlias(p string) string {
	if strings.HasPrefix(p, "/proc/") {
		return ""
	}
	// A path that does not exist is no alias (one stat, where resolving
	// its links would stat every component).
	fi, err := os.Stat(p)
	if err != nil {
		return ""
	}
	if r, err := filepath.EvalSymlinks(p); err == nil && r != p && IsSecretPath(r) {
		return "a link to " + r
	}
	if !fi.Mode().IsRegular() || fi.Size() > maxTwinSize || fi.Size() == 0 {
		return ""
	}
	dirs := []string{filepath.Dir(p)}
	for d := filepath.Dir(p); d != filepath.Dir(d); d = filepath.Dir(d) {
		if st, err := os.Stat(filepath.Join(d, ".git")); err == nil && st.IsDir() {
			if d != dirs[0] {
				dirs = append(dirs, d)
			}
			break
		}
	}
	var body []byte
	for _, d := range dirs {
		ents, err := os.ReadDir(d)
		if err != nil {
			continue
		}
		for i, en := range ents {
			if i >= maxDirScan {
				break
			}
			q := filepath.Join(d, en.Name())
			if q == p || !IsSecretPath(q) {
				continue
			}
			qi, err := os.Stat(q)
			if err != nil || !qi.Mode().IsRegular() {
				continue
			}
			if os.SameFile(fi, qi) {
				return "a hard link to " + q
			}
			if qi.Size() != fi.Size() || fi.Size() < minTwinSize {
				continue
			}
			if body == nil {
				if body, err = os.ReadFile(p); err != nil {
					return ""
				}
			}
			if other, err := os.ReadFile(q); err == nil && string(other) == string(body) {
				return "a copy of " + q
			}
		}
	}
	return ""
}
