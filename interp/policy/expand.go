package policy

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/pattern"
	"mvdan.cc/sh/v3/syntax"
)

// ShellEnv is where a command line will run: the directory its relative
// words and globs start from and the environment its shell starts with.
// The analysis expands each word as bash will at that place (braces,
// tilde, parameters, builtin-only substitutions, arithmetic, quote
// removal, globs against the real file system), without running
// anything.
type ShellEnv struct {
	// Dir is the working directory; "" expands no glob.
	Dir string
	// Getenv reads the environment the shell starts with (the host's).
	// A variable it does not know, and one the line sets from something
	// only known when it runs, makes the words using it opaque. Nil
	// knows none.
	Getenv func(string) (string, bool)
}

// Expansion budget, counted in work, not time, so that a decision does
// not depend on the machine's load: past any of these the line is
// unchecked (refused, saying why), never a hang.
const (
	maxExpandFields = 1024
	maxExpandDirs   = 256
	maxExpandAlts   = 16
	maxVarValues    = 16
	maxExpandWords  = 4096
)

// overBudget marks an expansion error as the budget's.
const overBudget = "over guardrun's expansion budget: "

// errOpaque marks an expansion that depends on what only running the
// line can tell.
type errOpaque struct{ why string }

func (e errOpaque) Error() string { return e.why }

// shellVar is a variable the line sets: every value it may hold where
// it is read (a branch, loop or pipeline may or may not have set it).
// opaque marks one whose value is only known when the line runs.
type shellVar struct {
	vals   [][]string // each value; a string variable's is one element
	array  bool
	opaque string
}

// expander is the state of one line's expansion, in the order its
// commands run: the variables set so far, the glob options, the
// directory.
type expander struct {
	env ShellEnv
	// cfg is the word expansions' Config while cfgKey holds (wordConfig).
	cfg    *expand.Config
	cfgKey configKey
	vars   map[string]*shellVar
	// pos are the positional parameters (`set -- a b`); posOpaque when
	// unknown (inside a function body).
	pos       []string
	posOpaque bool
	// envChanged: code the analysis cannot read (source of a file,
	// eval of a computed string) may have set any variable.
	envChanged string
	// cond counts the branches, loops and pipelines the walk is inside:
	// an assignment there may or may not happen.
	cond int
	// glob options set by the line so far.
	dotglob, nocaseglob, globstar, extglob, nullglob, noglob bool
	globignore                                               string
	// dir is where the line is now (after cd); dirOpaque when only
	// known when it runs.
	dir       string
	dirOpaque bool
	dirsRead  int
	words     int
	// pick selects, for each variable with several values, the one the
	// expansion now uses; touched collects those a word read.
	pick    map[string]int
	touched []string
	hit     string
	// envRead are the names read from the starting environment.
	envRead []string
}

func newExpander(env ShellEnv) *expander {
	return &expander{env: env, vars: map[string]*shellVar{}, dir: env.Dir}
}

// snapshot is the part of the state a subshell changes without changing
// its parent's.
type snapshot struct {
	vars                                                     map[string]*shellVar
	pos                                                      []string
	dotglob, nocaseglob, globstar, extglob, nullglob, noglob bool
	globignore, dir                                          string
	dirOpaque                                                bool
}

func (x *expander) save() snapshot {
	return snapshot{maps.Clone(x.vars), x.pos, x.dotglob, x.nocaseglob, x.globstar, x.extglob, x.nullglob, x.noglob,
		x.globignore, x.dir, x.dirOpaque}
}

// restore returns to s, keeping what the subshell could have added to
// the parent's view only where that errs towards more: the glob options
// it switched on stay on (more matches checked).
func (x *expander) restore(s snapshot) {
	x.vars, x.pos, x.dir, x.dirOpaque = s.vars, s.pos, s.dir, s.dirOpaque
	x.noglob, x.globignore, x.nullglob = s.noglob, s.globignore, s.nullglob
}

// Get is expand.Environ's: a variable of the line, of the host's
// environment, or a special parameter. Anything only known when the
// line runs records why in hit and reads as unset.
func (x *expander) Get(name string) expand.Variable {
	if v, ok := x.vars[name]; ok {
		if v.opaque != "" {
			x.miss(v.opaque)
			return expand.Variable{}
		}
		i := 0
		if len(v.vals) > 1 {
			i = x.pick[name]
			if !slices.Contains(x.touched, name) {
				x.touched = append(x.touched, name)
			}
		}
		if i >= len(v.vals) {
			i = 0
		}
		val := v.vals[i]
		if val == nil {
			return expand.Variable{}
		}
		if v.array {
			return expand.Variable{Set: true, Kind: expand.Indexed, List: val}
		}
		return expand.Variable{Set: true, Kind: expand.String, Str: val[0]}
	}
	switch name {
	case "IFS":
		return expand.Variable{}
	case "PWD":
		if x.dir == "" && !x.dirOpaque {
			// No working directory given: nothing is globbed, and the
			// expansion asks for PWD for that alone.
			return expand.Variable{}
		}
		if x.dirOpaque {
			x.miss("the working directory is only known when the line runs")
			return expand.Variable{}
		}
		return expand.Variable{Set: true, Kind: expand.String, Str: x.dir}
	case "#", "@", "*":
		if x.posOpaque {
			x.miss("the positional parameters are only known when the line runs")
			return expand.Variable{}
		}
		if name == "#" {
			return expand.Variable{Set: true, Kind: expand.String, Str: fmt.Sprint(len(x.pos))}
		}
		return expand.Variable{Set: true, Kind: expand.Indexed, List: x.pos}
	case "?", "$", "!", "-", "0", "_", "PPID", "RANDOM", "SRANDOM", "SECONDS", "BASHPID", "EPOCHSECONDS",
		"EPOCHREALTIME", "LINENO", "BASH_COMMAND", "OLDPWD", "REPLY", "PIPESTATUS", "FUNCNAME", "BASH_SOURCE":
		x.miss("$" + name + " is only known when the line runs")
		return expand.Variable{}
	}
	if len(name) > 0 && name[0] >= '1' && name[0] <= '9' {
		if x.posOpaque {
			x.miss("the positional parameters are only known when the line runs")
			return expand.Variable{}
		}
		n := 0
		fmt.Sscan(name, &n)
		if n >= 1 && n <= len(x.pos) {
			return expand.Variable{Set: true, Kind: expand.String, Str: x.pos[n-1]}
		}
		return expand.Variable{}
	}
	if x.envChanged != "" {
		x.miss(x.envChanged)
		return expand.Variable{}
	}
	if x.env.Getenv != nil {
		if v, ok := x.env.Getenv(name); ok {
			if !slices.Contains(x.envRead, name) {
				x.envRead = append(x.envRead, name)
			}
			return expand.Variable{Set: true, Exported: true, Kind: expand.String, Str: v}
		}
	}
	if strings.HasPrefix(name, "HOME ") {
		// ~user: the user's home directory.
		x.miss("~" + name[5:] + " is another user's home")
		return expand.Variable{}
	}
	x.miss("$" + name + " is not set where guardrun runs, so its value is only known when the line runs")
	return expand.Variable{}
}

// Each is expand.Environ's: the line's variables (for ${!prefix*}).
func (x *expander) Each(fn func(string, expand.Variable) bool) {
	for name := range x.vars {
		if !fn(name, x.Get(name)) {
			return
		}
	}
}

func (x *expander) miss(why string) {
	if x.hit == "" {
		x.hit = why
	}
}

// wordConfig is config for the expansion of a word, the same Config
// from word to word while the line's options stay as they are (the
// library keeps its buffers in it). Expansions nested in a word's (a
// command substitution's) take a config of their own.
func (x *expander) wordConfig() *expand.Config {
	key := configKey{x.dotglob || x.globignore != "", x.nocaseglob, x.globstar, x.nullglob, x.extglob, x.dir != "" && !x.dirOpaque && !x.noglob}
	if x.cfg == nil || x.cfgKey != key {
		x.cfg, x.cfgKey = x.config(), key
	}
	return x.cfg
}

// configKey is what config reads of the line's state.
type configKey struct{ dotglob, nocaseglob, globstar, nullglob, extglob, readDir bool }

// config is the expansion configuration for the line's state now.
func (x *expander) config() *expand.Config {
	cfg := &expand.Config{
		Env:        x,
		CmdSubst:   x.cmdSubst,
		ProcSubst:  func(*syntax.ProcSubst) (string, error) { return "/dev/fd/63", nil },
		DotGlob:    x.dotglob || x.globignore != "",
		NoCaseGlob: x.nocaseglob,
		GlobStar:   x.globstar,
		NullGlob:   x.nullglob,
		ExtGlob:    x.extglob,
	}
	if x.dir != "" && !x.dirOpaque && !x.noglob {
		cfg.ReadDir2 = x.readDir
	}
	return cfg
}

// readDir lists a directory for a glob, within the budget.
func (x *expander) readDir(p string) ([]fs.DirEntry, error) {
	x.dirsRead++
	if x.dirsRead > maxExpandDirs {
		return nil, errOpaque{overBudget + "globs read more directories than guardrun expands"}
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(x.dir, p)
	}
	return os.ReadDir(p)
}

// cmdSubst runs a command substitution only when every command of it is
// a builtin whose output the words alone give (printf, echo, pwd,
// command -v): anything else is opaque.
func (x *expander) cmdSubst(out io.Writer, cs *syntax.CmdSubst) error {
	for _, st := range cs.Stmts {
		call, ok := st.Cmd.(*syntax.CallExpr)
		if !ok || len(st.Redirs) > 0 || st.Background || st.Negated || len(call.Assigns) > 0 || len(call.Args) == 0 {
			return errOpaque{"a command substitution runs a command"}
		}
		args, err := expand.Fields(x.config(), call.Args...)
		if err != nil {
			return err
		}
		if len(args) == 0 {
			continue
		}
		switch args[0] {
		case "printf":
			a := args[1:]
			if len(a) > 0 && a[0] == "--" {
				a = a[1:]
			}
			if len(a) == 0 || a[0] == "-v" {
				return errOpaque{"printf -v sets a variable"}
			}
			s, _, err := expand.Format(x.config(), a[0], a[1:])
			if err != nil {
				return errOpaque{"printf: " + err.Error()}
			}
			io.WriteString(out, s)
		case "echo":
			a, nl := args[1:], true
			for len(a) > 0 && (a[0] == "-n" || a[0] == "-E") {
				nl = nl && a[0] != "-n"
				a = a[1:]
			}
			if len(a) > 0 && strings.HasPrefix(a[0], "-") && strings.Trim(a[0], "-neE") == "" && a[0] != "-" {
				return errOpaque{"echo with escapes"}
			}
			io.WriteString(out, strings.Join(a, " "))
			if nl {
				io.WriteString(out, "\n")
			}
		case "pwd":
			if x.dir == "" || x.dirOpaque {
				return errOpaque{"the working directory is only known when the line runs"}
			}
			io.WriteString(out, x.dir+"\n")
		case "command", "type", "which":
			if p, ok := x.lookPath(args); ok {
				io.WriteString(out, p+"\n")
				continue
			}
			return errOpaque{"a command substitution runs a command"}
		default:
			return errOpaque{"a command substitution runs " + args[0]}
		}
	}
	return nil
}

// lookPath answers `command -v NAME`, `type -P NAME` and `which NAME`
// from the PATH the shell starts with.
func (x *expander) lookPath(args []string) (string, bool) {
	if len(args) != 3 || !(args[0] == "command" && args[1] == "-v" || args[0] == "type" && args[1] == "-P") {
		if !(len(args) == 2 && args[0] == "which") {
			return "", false
		}
	}
	name := args[len(args)-1]
	if strings.Contains(name, "/") || name == "" {
		return "", false
	}
	path, ok := "", false
	if x.env.Getenv != nil {
		path, ok = x.env.Getenv("PATH")
	}
	if !ok {
		return "", false
	}
	for _, d := range filepath.SplitList(path) {
		if d == "" || !filepath.IsAbs(d) {
			continue
		}
		p := filepath.Join(d, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p, true
		}
	}
	return "", false
}

// fields expands the words of one command as bash will, once for each
// value a variable set in a branch may hold (at most maxExpandAlts).
// Each result is one argv; a word only known when the line runs is kept
// as written and marked opaque in dyn, with why.
func (x *expander) fields(words []*syntax.Word, src string) (argvs [][]shellWord, why string) {
	// No picks for the first expansion (a nil map reads as empty): the
	// map is made only for a command whose words read a variable of
	// several values.
	x.pick = nil
	x.touched = nil
	first, why := x.fieldsOnce(words, src)
	argvs = append(argvs, first)
	touched := slices.Clone(x.touched)
	if len(touched) == 0 {
		return argvs, why
	}
	x.pick = make(map[string]int, len(touched))
	// Every combination of the touched variables' values, odometer order.
	idx := make([]int, len(touched))
	for {
		k := 0
		for k < len(touched) {
			idx[k]++
			if idx[k] < len(x.vars[touched[k]].vals) {
				break
			}
			idx[k] = 0
			k++
		}
		if k == len(touched) {
			break
		}
		if len(argvs) >= maxExpandAlts {
			// Too many: the words that read these variables are opaque.
			return [][]shellWord{x.opaqueWords(words, src)}, overBudget + "a variable takes more values than guardrun follows"
		}
		for i, n := range touched {
			x.pick[n] = idx[i]
		}
		argv, w := x.fieldsOnce(words, src)
		if why == "" {
			why = w
		}
		if !slices.ContainsFunc(argvs, func(a []shellWord) bool { return slices.Equal(a, argv) }) {
			argvs = append(argvs, argv)
		}
	}
	return argvs, why
}

// opaqueWords is every word of a command as written, opaque.
func (x *expander) opaqueWords(words []*syntax.Word, src string) []shellWord {
	out := make([]shellWord, 0, len(words))
	for _, w := range words {
		out = append(out, shellWord{text: src[w.Pos().Offset():w.End().Offset()], dyn: true})
	}
	return out
}

// fieldsOnce expands words with the current picks.
func (x *expander) fieldsOnce(words []*syntax.Word, src string) (argv []shellWord, why string) {
	argv = make([]shellWord, 0, len(words))
	for _, w := range words {
		if lit, ok := x.plainWord(w); ok {
			// x.word's one field, without its list.
			argv = append(argv, shellWord{text: lit})
			continue
		}
		fs, err := x.word(w)
		if err != nil {
			if why == "" {
				why = err.Error()
			}
			argv = append(argv, shellWord{text: src[w.Pos().Offset():w.End().Offset()], dyn: true})
			continue
		}
		for _, f := range fs {
			argv = append(argv, shellWord{text: f})
		}
		if len(argv) > maxExpandFields {
			return x.opaqueWords(words, src), overBudget + "a word expands to more fields than guardrun follows"
		}
	}
	return argv, why
}

// plainWord is x.word for a word that is one plain literal (plainLit)
// within the word budget: it counts the word and returns its one field.
// ok is false, and nothing is counted, for any other word.
func (x *expander) plainWord(w *syntax.Word) (string, bool) {
	if x.words+1 > maxExpandWords || x.emptyAt(w) {
		return "", false
	}
	lit, ok := plainLit(w)
	if !ok {
		return "", false
	}
	x.words++
	x.hit = ""
	return lit, true
}

// word expands one word to its fields, or fails with why it is opaque.
func (x *expander) word(w *syntax.Word) (out []string, err error) {
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, errOpaque{fmt.Sprint("the expansion failed: ", r)}
		}
	}()
	if x.words++; x.words > maxExpandWords {
		return nil, errOpaque{overBudget + "the line has more words than guardrun expands"}
	}
	x.hit = ""
	if x.emptyAt(w) {
		return nil, nil
	}
	if lit, ok := plainLit(w); ok {
		return []string{lit}, nil
	}
	return x.expandWord(w)
}

// expandWord is x.word's expansion by the library, for a word that is
// not one plain literal. It is a function of its own so that x.word's
// results, which x.word's recover sets, do not move to the heap for
// the closures of the loops over the library's sequences.
func (x *expander) expandWord(w *syntax.Word) (out []string, err error) {
	cfg := x.wordConfig()
	// Brace expansion comes first, and tilde expansion after it: bash
	// expands ~{,} to two home directories, which the library would
	// leave as a literal ~ (the tilde is then followed by another part).
	words := []*syntax.Word{w}
	c := *w
	if syntax.SplitBraces(&c) {
		words = words[:0]
		for bw, err := range expand.BracesSeq(cfg, &c) {
			if err != nil {
				return nil, errOpaque{err.Error()}
			}
			if len(words) >= maxExpandFields {
				return nil, errOpaque{overBudget + "a brace expands to more words than guardrun follows"}
			}
			words = append(words, joinLits(bw))
		}
	}
	for _, bw := range words {
		for f, err := range expand.FieldsSeq(cfg, bw) {
			if err != nil {
				var op errOpaque
				if errors.As(err, &op) {
					return nil, op
				}
				return nil, errOpaque{"cannot expand it: " + err.Error()}
			}
			if x.hit != "" {
				return nil, errOpaque{x.hit}
			}
			out = append(out, f)
			if len(out) > maxExpandFields {
				return nil, errOpaque{overBudget + "a word expands to more fields than guardrun follows"}
			}
		}
		if x.hit != "" {
			return nil, errOpaque{x.hit}
		}
	}
	if x.globignore != "" && hasGlob(w) {
		out = x.ignore(out)
	}
	return out, nil
}

// plainLit returns a word that is one literal holding nothing bash
// expands (no glob or extglob, brace, tilde, escape or dollar): its one
// field is itself, as the library would find at more cost.
func plainLit(w *syntax.Word) (string, bool) {
	if len(w.Parts) != 1 {
		return "", false
	}
	l, ok := w.Parts[0].(*syntax.Lit)
	if !ok || strings.ContainsAny(l.Value, "*?[{~\\$(") {
		return "", false
	}
	return l.Value, true
}

// joinLits merges the literal parts at the start of a word a brace
// expansion made, so that a leading ~ is seen with what follows it.
func joinLits(w *syntax.Word) *syntax.Word {
	if len(w.Parts) < 2 {
		return w
	}
	first, ok := w.Parts[0].(*syntax.Lit)
	if !ok {
		return w
	}
	val := first.Value
	i := 1
	for ; i < len(w.Parts); i++ {
		l, ok := w.Parts[i].(*syntax.Lit)
		if !ok {
			break
		}
		val += l.Value
	}
	if i == 1 {
		return w
	}
	lit := *first
	lit.Value = val
	parts := append([]syntax.WordPart{&lit}, w.Parts[i:]...)
	return &syntax.Word{Parts: parts}
}

// hasGlob reports an unquoted glob character in w.
func hasGlob(w *syntax.Word) bool {
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			if pattern.HasMeta(p.Value, 0) {
				return true
			}
		case *syntax.ExtGlob:
			return true
		}
	}
	return false
}

// ignore drops the matches GLOBIGNORE names, and . and .., as bash does.
func (x *expander) ignore(matches []string) []string {
	var pats []func(string) bool
	for _, p := range strings.Split(x.globignore, ":") {
		if p == "" {
			continue
		}
		expr, err := pattern.Regexp(p, pattern.Filenames|pattern.EntireString)
		if err != nil {
			continue
		}
		if re, err := regexp.Compile(expr); err == nil {
			pats = append(pats, re.MatchString)
		}
	}
	out := matches[:0:0]
	for _, m := range matches {
		b := filepath.Base(m)
		if b == "." || b == ".." {
			continue
		}
		if slices.ContainsFunc(pats, func(f func(string) bool) bool { return f(m) }) {
			continue
		}
		out = append(out, m)
	}
	return out
}

// literal expands an assignment's value: no field splitting and no
// glob, a leading ~ is the home directory.
func (x *expander) literal(w *syntax.Word) (s string, err error) {
	defer func() {
		if r := recover(); r != nil {
			s, err = "", errOpaque{fmt.Sprint("the expansion failed: ", r)}
		}
	}()
	if w == nil {
		return "", nil
	}
	x.hit = ""
	cfg := x.config()
	cfg.ReadDir2 = nil
	s, err = expand.Literal(cfg, w)
	if err != nil {
		var op errOpaque
		if errors.As(err, &op) {
			return "", op
		}
		return "", errOpaque{"cannot expand it: " + err.Error()}
	}
	if x.hit != "" {
		return "", errOpaque{x.hit}
	}
	if l, ok := w.Parts[0].(*syntax.Lit); ok && (l.Value == "~" || strings.HasPrefix(l.Value, "~/")) && strings.HasPrefix(s, "~") {
		home := x.Get("HOME")
		if x.hit != "" {
			return "", errOpaque{x.hit}
		}
		s = home.Str + strings.TrimPrefix(s, "~")
	}
	return s, nil
}

// set records an assignment the line makes; vals nil unsets, why
// non-empty marks a value only known when the line runs.
func (x *expander) set(name string, val []string, array bool, why string) {
	if name == "GLOBIGNORE" && why == "" {
		x.globignore = ""
		if len(val) > 0 {
			x.globignore = val[0]
		}
	}
	old, had := x.vars[name]
	if why != "" {
		x.vars[name] = &shellVar{opaque: why}
		return
	}
	if x.cond == 0 || !had {
		if x.cond > 0 && !had {
			// Set in a branch: either this value or what it was before.
			prev := x.Get(name)
			if x.hit != "" {
				x.hit = ""
				x.vars[name] = &shellVar{opaque: "$" + name + " is set in a branch and unknown otherwise"}
				return
			}
			var before []string
			if prev.IsSet() {
				before = []string{prev.Str}
				if prev.Kind == expand.Indexed {
					before = prev.List
				}
			}
			x.vars[name] = &shellVar{vals: [][]string{before, val}, array: array}
			return
		}
		x.vars[name] = &shellVar{vals: [][]string{val}, array: array}
		return
	}
	if old.opaque != "" {
		return
	}
	if len(old.vals) >= maxVarValues {
		x.vars[name] = &shellVar{opaque: "$" + name + " takes more values than guardrun follows"}
		return
	}
	nv := &shellVar{vals: append(slices.Clone(old.vals), val), array: array || old.array}
	x.vars[name] = nv
}

// builtin applies what a simple command the line runs changes for the
// words after it: shell options, positional parameters, the directory,
// variables read or declared.
func (x *expander) builtin(argv []shellWord) {
	if len(argv) == 0 {
		return
	}
	if argv[0].dyn {
		return
	}
	args := make([]string, 0, len(argv)-1)
	opaqueArg := false
	for _, a := range argv[1:] {
		args = append(args, a.text)
		opaqueArg = opaqueArg || a.dyn
	}
	switch argv[0].text {
	case "shopt":
		on := true
		for _, a := range args {
			switch a {
			case "-s":
				on = true
				continue
			case "-u":
				on = false
				continue
			}
			x.option(a, on)
		}
		if opaqueArg {
			x.dotglob, x.nocaseglob, x.globstar, x.extglob = true, true, true, true
		}
	case "set":
		for i := 0; i < len(args); i++ {
			a := args[i]
			switch {
			case a == "--":
				if x.cond == 0 {
					x.pos = slices.Clone(args[i+1:])
				} else {
					x.posOpaque = true
				}
				i = len(args)
			case a == "-f" || a == "-o" && i+1 < len(args) && args[i+1] == "noglob":
				x.noglob = x.noglob || x.cond == 0
			case a == "+f" || a == "+o" && i+1 < len(args) && args[i+1] == "noglob":
				x.noglob = false
			}
		}
		if opaqueArg {
			x.posOpaque = true
		}
	case "cd", "pushd", "popd":
		target := ""
		for _, a := range argv[1:] {
			if a.dyn {
				x.dirOpaque = true
				return
			}
			if !strings.HasPrefix(a.text, "-") {
				target = a.text
				break
			}
		}
		switch {
		case argv[0].text == "popd" || target == "-":
			x.dirOpaque = true
		case target == "":
			if h, ok := x.homeDir(); ok {
				x.dir = h
			} else {
				x.dirOpaque = true
			}
		default:
			if !filepath.IsAbs(target) {
				target = filepath.Join(x.dir, target)
			}
			if fi, err := os.Stat(target); err == nil && fi.IsDir() {
				x.dir = filepath.Clean(target)
			} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
				x.dirOpaque = true
			}
		}
	case "read", "mapfile", "readarray", "getopts", "printf":
		// printf -v NAME; read NAME…: set from what only running tells.
		for i, a := range args {
			if strings.HasPrefix(a, "-") {
				if a == "-v" && i+1 < len(args) && argv[0].text == "printf" {
					x.set(args[i+1], nil, false, "$"+args[i+1]+" is set by printf -v")
				}
				continue
			}
			if argv[0].text != "printf" && validName(a) {
				x.set(a, nil, false, "$"+a+" is read when the line runs")
			}
		}
		if argv[0].text == "read" && !slices.ContainsFunc(args, func(a string) bool { return !strings.HasPrefix(a, "-") }) {
			x.set("REPLY", nil, false, "$REPLY is read when the line runs")
		}
	case "unset":
		for _, a := range args {
			if validName(a) {
				x.set(a, nil, false, "")
			}
		}
	case "source", ".", "eval":
		if x.envChanged == "" {
			x.envChanged = "an earlier " + argv[0].text + " may have set any variable"
		}
	}
}

// option sets one shopt option the expansion models.
func (x *expander) option(name string, on bool) {
	switch name {
	case "dotglob":
		x.dotglob = x.dotglob || on
	case "nocaseglob", "nocasematch":
		x.nocaseglob = x.nocaseglob || on
	case "globstar":
		x.globstar = x.globstar || on
	case "extglob":
		x.extglob = x.extglob || on
	case "nullglob":
		x.nullglob = on && x.cond == 0
	}
}

// homeDir is $HOME as the line sees it.
func (x *expander) homeDir() (string, bool) {
	v := x.Get("HOME")
	if x.hit != "" {
		x.hit = ""
		return "", false
	}
	return v.Str, v.IsSet()
}

// validName reports a shell variable name.
func validName(s string) bool {
	if s == "" || s[0] >= '0' && s[0] <= '9' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// emptyAt reports "$@" with no positional parameters, which bash expands
// to no word at all (the library gives one empty word).
func (x *expander) emptyAt(w *syntax.Word) bool {
	if len(w.Parts) != 1 || x.posOpaque || len(x.pos) > 0 {
		return false
	}
	dq, ok := w.Parts[0].(*syntax.DblQuoted)
	if !ok || len(dq.Parts) != 1 {
		return false
	}
	pe, ok := dq.Parts[0].(*syntax.ParamExp)
	return ok && pe.Param != nil && pe.Param.Value == "@" && !pe.Excl && !pe.Length && pe.Index == nil &&
		pe.Slice == nil && pe.Repl == nil && pe.Exp == nil
}
