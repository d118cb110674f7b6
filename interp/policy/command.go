package policy

import (
	"strings"
)

// maxNesting bounds command substitution, sh -c and eval nesting. Deeper
// input is denied rather than partially checked.
const maxNesting = 32

// simpleCmd is one simple command of a command line.
type simpleCmd struct {
	// raw are the words after quote removal, without leading assignments
	// and reserved words; tokens are the same words normalized (basename,
	// lower case). Both drop words that normalize to nothing, so they
	// stay aligned.
	raw, tokens []string
	// tooDeep marks nesting beyond maxNesting.
	tooDeep bool
}

// splitCommands splits a shell command line into every simple command it
// may run: the top-level ones (split at ; | & && || newlines and
// parentheses) and, recursively, those inside $(…), `…`, <(…), >(…),
// unquoted here-documents, sh -c scripts and eval arguments. mlld checks the
// whole line as one token list, which lets `echo x; rm -rf /` pass an echo
// allow list; checking each command closes that.
func splitCommands(line string) []simpleCmd {
	var out []simpleCmd
	lex(line, 0, true, &out)
	return out
}

// heredoc is a pending here-document whose body starts at the next newline.
type heredoc struct {
	delim        string
	quoted, tabs bool
}

// redirect states for the word after an operator.
const (
	redirNone = iota
	redirTarget
	redirHeredoc
	redirHeredocTabs
)

// lex appends the simple commands of s to out. keepTop false discards the
// top-level words (arithmetic) but still collects nested substitutions.
func lex(s string, depth int, keepTop bool, out *[]simpleCmd) {
	if depth > maxNesting {
		*out = append(*out, simpleCmd{raw: []string{s}, tooDeep: true})
		return
	}
	var (
		words   []string
		cur     strings.Builder
		inWord  bool
		quoted  bool
		redir   = redirNone
		pending []heredoc
	)
	flush := func() {
		if !inWord {
			return
		}
		switch redir {
		case redirTarget:
		case redirHeredoc, redirHeredocTabs:
			pending = append(pending, heredoc{delim: cur.String(), quoted: quoted, tabs: redir == redirHeredocTabs})
		default:
			words = append(words, cur.String())
		}
		redir = redirNone
		cur.Reset()
		inWord, quoted = false, false
	}
	end := func() {
		flush()
		redir = redirNone
		if keepTop && len(words) > 0 {
			emit(words, depth, out)
		}
		words = nil
	}
	i := 0
	for i < len(s) {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\r':
			flush()
			i++
		case c == '\n':
			end()
			i++
			if len(pending) > 0 {
				i = skipHeredocs(s, i, pending, depth, out)
				pending = nil
			}
		case c == ';' || c == '(' || c == ')' || c == '|':
			end()
			i++
		case c == '&':
			if i+1 < len(s) && s[i+1] == '>' {
				flush()
				i += 2
				if i < len(s) && s[i] == '>' {
					i++
				}
				redir = redirTarget
				continue
			}
			end()
			i++
		case (c == '<' || c == '>') && i+1 < len(s) && s[i+1] == '(':
			close := matchParen(s, i+2)
			lex(s[i+2:close], depth+1, true, out)
			cur.WriteString(s[i:min(close+1, len(s))])
			inWord = true
			i = close + 1
		case c == '<' || c == '>':
			if inWord && redir == redirNone && allDigits(cur.String()) {
				cur.Reset()
				inWord, quoted = false, false
			} else {
				flush()
			}
			j := i + 1
			for j < len(s) && (s[j] == '<' || s[j] == '>' || s[j] == '&' || s[j] == '|') {
				j++
			}
			op := s[i:j]
			redir = redirTarget
			if op == "<<" {
				redir = redirHeredoc
				if j < len(s) && s[j] == '-' {
					redir = redirHeredocTabs
					j++
				}
			}
			i = j
		case c == '#' && !inWord:
			for i < len(s) && s[i] != '\n' {
				i++
			}
		case c == '\\':
			if i+1 < len(s) {
				if s[i+1] != '\n' {
					cur.WriteByte(s[i+1])
					inWord = true
				}
				i += 2
				continue
			}
			i++
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				j = len(s) - i - 1
			}
			cur.WriteString(s[i+1 : i+1+j])
			inWord, quoted = true, true
			i += j + 2
		case c == '"':
			i = lexDouble(s, i+1, depth, &cur, out)
			inWord, quoted = true, true
		case c == '`' || (c == '$' && i+1 < len(s) && s[i+1] == '('):
			next := substitution(s, i, depth, out)
			cur.WriteString(s[i:min(next, len(s))])
			inWord = true
			i = next
		default:
			cur.WriteByte(c)
			inWord = true
			i++
		}
	}
	end()
}

// lexDouble reads a double-quoted string starting after its opening quote,
// writing its value to cur, and returns the index after the closing quote.
// Substitutions inside it still run, so they are collected.
func lexDouble(s string, i, depth int, cur *strings.Builder, out *[]simpleCmd) int {
	for i < len(s) {
		c := s[i]
		switch {
		case c == '"':
			return i + 1
		case c == '\\' && i+1 < len(s):
			switch s[i+1] {
			case '"', '\\', '$', '`':
				cur.WriteByte(s[i+1])
			case '\n':
			default:
				cur.WriteByte('\\')
				cur.WriteByte(s[i+1])
			}
			i += 2
		case c == '`' || (c == '$' && i+1 < len(s) && s[i+1] == '('):
			next := substitution(s, i, depth, out)
			cur.WriteString(s[i:min(next, len(s))])
			i = next
		default:
			cur.WriteByte(c)
			i++
		}
	}
	return i
}

// substitution lexes the command substitution (or arithmetic expansion)
// at s[i] and returns the index after it.
func substitution(s string, i, depth int, out *[]simpleCmd) int {
	if s[i] == '`' {
		j := i + 1
		var body strings.Builder
		for j < len(s) && s[j] != '`' {
			if s[j] == '\\' && j+1 < len(s) && (s[j+1] == '`' || s[j+1] == '\\' || s[j+1] == '$') {
				j++
			}
			body.WriteByte(s[j])
			j++
		}
		lex(body.String(), depth+1, true, out)
		return j + 1
	}
	if i+2 < len(s) && s[i+2] == '(' {
		// $(( … )): arithmetic; only substitutions inside it run commands.
		close := matchParen(s, i+3)
		lex(s[i+3:close], depth+1, false, out)
		next := close + 1
		if next < len(s) && s[next] == ')' {
			next++
		}
		return next
	}
	close := matchParen(s, i+2)
	lex(s[i+2:close], depth+1, true, out)
	return close + 1
}

// matchParen returns the index of the ')' closing a '(' just before start,
// skipping quoted text, or len(s) when it is missing.
func matchParen(s string, start int) int {
	depth := 1
	for i := start; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return len(s)
			}
			i += j + 1
		case '"':
			for i++; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' {
					i++
				}
			}
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return len(s)
}

// skipHeredocs skips the bodies of the pending here-documents starting at
// i and returns the index after the last delimiter line. An unquoted
// delimiter means the body is expanded, so its substitutions are lexed.
func skipHeredocs(s string, i int, docs []heredoc, depth int, out *[]simpleCmd) int {
	for _, d := range docs {
		for i < len(s) {
			nl := strings.IndexByte(s[i:], '\n')
			lineEnd := len(s)
			if nl >= 0 {
				lineEnd = i + nl
			}
			line := s[i:lineEnd]
			i = min(lineEnd+1, len(s))
			check := line
			if d.tabs {
				check = strings.TrimLeft(line, "\t")
			}
			if check == d.delim {
				break
			}
			if !d.quoted {
				bodySubstitutions(line, depth, out)
			}
		}
	}
	return i
}

// bodySubstitutions lexes the substitutions of here-document text, where
// quotes are literal.
func bodySubstitutions(s string, depth int, out *[]simpleCmd) {
	for i := 0; i < len(s); {
		switch {
		case s[i] == '\\':
			i += 2
		case s[i] == '`' || (s[i] == '$' && i+1 < len(s) && s[i+1] == '('):
			i = substitution(s, i, depth, out)
		default:
			i++
		}
	}
}

// reservedWords start compound commands; the command they introduce is
// what runs.
var reservedWords = map[string]bool{
	"{": true, "}": true, "!": true, "if": true, "then": true, "else": true,
	"elif": true, "fi": true, "do": true, "done": true, "while": true,
	"until": true, "esac": true,
}

// emit records the simple command made of words, plus the scripts it runs
// through sh -c or eval.
func emit(words []string, depth int, out *[]simpleCmd) {
	k := 0
	for k < len(words) && (isAssignment(words[k]) || reservedWords[words[k]]) {
		k++
	}
	c := simpleCmd{}
	for _, w := range words[k:] {
		if t := normalizeToken(w); t != "" {
			c.raw = append(c.raw, w)
			c.tokens = append(c.tokens, t)
		}
	}
	if len(c.tokens) == 0 {
		return
	}
	*out = append(*out, c)
	for _, o := range commandOffsets(c.tokens) {
		if script, ok := shellScript(c, o); ok {
			lex(script, depth+1, true, out)
		}
	}
}

// shellScript returns the script the command at offset o runs: the -c
// argument of a shell, or the arguments of eval.
func shellScript(c simpleCmd, o int) (string, bool) {
	if c.tokens[o] == "eval" {
		return strings.Join(c.raw[o+1:], " "), o+1 < len(c.raw)
	}
	if !shellBinaries[c.tokens[o]] {
		return "", false
	}
	// Every -…c… flag counts, not only those before the first operand:
	// reading too many scripts only checks more.
	for j := o + 1; j+1 < len(c.raw); j++ {
		t := c.raw[j]
		if len(t) > 1 && t[0] == '-' && t[1] != '-' && strings.ContainsRune(t[1:], 'c') {
			return c.raw[j+1], true
		}
	}
	return "", false
}

func isAssignment(w string) bool {
	eq := strings.IndexByte(w, '=')
	if eq <= 0 {
		return false
	}
	for i := 0; i < eq; i++ {
		c := w[i]
		if c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (i > 0 && c >= '0' && c <= '9') {
			continue
		}
		return false
	}
	return true
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// normalizeToken reduces a word to what command patterns compare: its
// basename, lower-cased, as mlld does. A word that is all slashes keeps
// its text.
func normalizeToken(w string) string {
	w = strings.TrimSpace(w)
	if w == "" {
		return ""
	}
	base := w
	if i := strings.LastIndexByte(w, '/'); i >= 0 && i+1 < len(w) {
		base = w[i+1:]
	}
	return strings.ToLower(base)
}

// isCmdEntry reports a capability string naming commands.
func isCmdEntry(lower string) bool {
	return lower == "cmd" || lower == "op:cmd" || strings.HasPrefix(lower, "cmd:") || strings.HasPrefix(lower, "op:cmd:")
}

// normalizeCmdEntry turns "cmd:git:status", "op:cmd:npm:*", "cmd" or a
// bare "echo" into the normalized pattern ("git:status", "npm:*", "*",
// "echo"). ok is false for a pattern with no tokens.
func normalizeCmdEntry(entry string) (string, bool) {
	e := strings.TrimSpace(entry)
	lower := strings.ToLower(e)
	switch {
	case lower == "cmd" || lower == "op:cmd" || lower == "*":
		return "*", true
	case strings.HasPrefix(lower, "op:cmd:"):
		e = strings.TrimSpace(e[len("op:cmd:"):])
		if e == "" {
			return "*", true
		}
	case strings.HasPrefix(lower, "cmd:"):
		e = strings.TrimSpace(e[len("cmd:"):])
		if e == "" {
			return "*", true
		}
	}
	toks := patternTokens(e)
	if len(toks) == 0 {
		return "", false
	}
	return strings.Join(toks, ":"), true
}

// patternTokens splits a normalized pattern at ':' (and blanks inside a
// part) into normalized tokens.
func patternTokens(p string) []string {
	var out []string
	for _, part := range strings.Split(p, ":") {
		for _, f := range strings.Fields(part) {
			if t := normalizeToken(f); t != "" {
				out = append(out, t)
			}
		}
	}
	return out
}

// matchesPattern reports whether command tokens match a normalized
// pattern, as mlld's matchesCommandPattern: a single plain token matches
// any arguments, a '*' matches any run of tokens, and a pattern whose '*'
// is not last may be followed by anything.
func matchesPattern(tokens []string, pattern string) bool {
	if pattern == "*" {
		return true
	}
	pat := patternTokens(pattern)
	if len(pat) == 0 {
		return false
	}
	hasStar := contains(pat, "*")
	if (!hasStar && len(pat) == 1) || (hasStar && pat[len(pat)-1] != "*") {
		pat = append(pat, "*")
	}
	return globTokens(tokens, pat)
}

func globTokens(tokens, pat []string) bool {
	ti, pi, star, mark := 0, 0, -1, 0
	for ti < len(tokens) {
		switch {
		case pi < len(pat) && pat[pi] == "*":
			star, mark = pi, ti
			pi++
		case pi < len(pat) && tokens[ti] == pat[pi]:
			ti++
			pi++
		case star >= 0:
			pi = star + 1
			mark++
			ti = mark
		default:
			return false
		}
	}
	for pi < len(pat) && pat[pi] == "*" {
		pi++
	}
	return pi == len(pat)
}

func matchesAny(tokens, patterns []string) (string, bool) {
	for _, p := range patterns {
		if matchesPattern(tokens, p) {
			return p, true
		}
	}
	return "", false
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
}

// wrapperFlagsWithArg take the next word as their argument.
// wrapperFlagsWithArg may take the next word as their argument. Tokens
// are lower-cased, so "-s" stands for both -s and -S; a flag wrongly
// listed here costs nothing, because both readings are checked.
var wrapperFlagsWithArg = map[string]bool{
	"-u": true, "-s": true, "--split-string": true, "-t": true, "--timeout": true,
	"--signal": true, "-n": true, "-p": true, "-i": true, "-l": true,
	"-d": true, "-a": true, "-e": true, "-k": true, "-o": true,
}

// commandOffsets returns where, within tokens, a command starts: 0, and
// for wrappers (env, timeout, xargs …) the command they run, recursively.
// Where a flag may or may not take an argument, both readings count, so
// the guess errs towards checking more.
func commandOffsets(tokens []string) []int {
	offs := []int{0}
	for k := 0; k < len(offs) && len(offs) < 16; k++ {
		o := offs[k]
		if !wrappers[tokens[o]] {
			continue
		}
		i := o + 1
		for i < len(tokens) {
			t := tokens[i]
			if t == "--" {
				i++
				break
			}
			if strings.HasPrefix(t, "-") {
				if wrapperFlagsWithArg[t] && i+1 < len(tokens) {
					offs = appendOffset(offs, i+1)
					i += 2
				} else {
					i++
				}
				continue
			}
			if strings.Contains(t, "=") {
				i++
				continue
			}
			break
		}
		if i < len(tokens) {
			if tokens[o] == "timeout" && tokens[i] != "" && tokens[i][0] >= '0' && tokens[i][0] <= '9' && i+1 < len(tokens) {
				offs = appendOffset(offs, i)
				i++
			}
			offs = appendOffset(offs, i)
		}
	}
	return offs
}

func appendOffset(offs []int, o int) []int {
	for _, x := range offs {
		if x == o {
			return offs
		}
	}
	return append(offs, o)
}
