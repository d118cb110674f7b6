package policy

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// maxNesting bounds command substitution, sh -c and eval nesting. Deeper
// input is denied rather than partially checked.
const maxNesting = 32

// CommandPart is a piece of a command line: shell text the script author
// wrote, or (Value) interpolated data. The interpreter hands a value to
// the shell as data, inside exactly one word, so the checker must never
// parse it as shell: `echo @q | rm x` with @q = "'" still runs rm.
type CommandPart struct {
	Text  string
	Value bool
}

// valueMark opens and closes the placeholder that stands for a value
// while a command line is lexed: NUL, the value's index, NUL. NUL cannot
// occur in shell text that runs (the script is passed as an argv string,
// and lines holding one are refused) and is dropped from values, so a
// placeholder never collides with either. It holds no quote, blank or
// operator byte, so a placeholder stays inside the word it appears in,
// quoted or not, as the shell's "${__gr_vN}" reference does.
const valueMark = '\x00'

// simpleCmd is one simple command of a command line.
type simpleCmd struct {
	// raw are the words after quote removal, values filled in, without
	// leading assignments and reserved words; tokens are the same words
	// normalized (basename, lower case); dyn marks the words whose text is
	// only known when the shell expands them ($x, globs, substitutions).
	// All three drop words that normalize to nothing, so they stay
	// aligned.
	raw, tokens []string
	dyn         []bool
	// val marks the words that hold a value.
	val []bool
	// invs are the commands the simple command runs: itself, and the
	// commands it wraps (env, timeout, xargs, find -exec …).
	invs []invocation
	// unchecked, when set, says why the command cannot be checked
	// (nesting beyond maxNesting, a value as here-document delimiter).
	unchecked string
}

// lexer splits a command line into simple commands; vals are the values
// its placeholders stand for.
type lexer struct {
	vals []string
	out  []simpleCmd
	// opaque keeps values as placeholders instead of filling their text
	// in: operation labels are derived from the literal text only, so no
	// value can add, hide or rename a command.
	opaque bool
}

// splitCommands splits a shell command line into every simple command it
// may run: the top-level ones (split at ; | & && || newlines and
// parentheses) and, recursively, those inside $(…), `…`, <(…), >(…),
// unquoted here-documents, sh -c scripts and eval arguments. mlld checks the
// whole line as one token list, which lets `echo x; rm -rf /` pass an echo
// allow list; checking each command closes that.
func splitCommands(line string) []simpleCmd {
	cmds, _ := splitParts([]CommandPart{{Text: line}})
	return cmds
}

// splitParts is splitCommands for a line with values: each value is lexed
// as one opaque piece of the word it appears in, exactly where the shell
// will see it, and its text is filled in afterwards. ok is false when the
// shell text holds a NUL byte.
func splitParts(parts []CommandPart) (cmds []simpleCmd, ok bool) {
	return (&lexer{}).split(parts)
}

// split lexes parts into lx.out; see splitParts.
func (lx *lexer) split(parts []CommandPart) (cmds []simpleCmd, ok bool) {
	var b strings.Builder
	for _, p := range parts {
		if !p.Value {
			if strings.IndexByte(p.Text, valueMark) >= 0 {
				return nil, false
			}
			b.WriteString(p.Text)
			continue
		}
		b.WriteByte(valueMark)
		b.WriteString(strconv.Itoa(len(lx.vals)))
		b.WriteByte(valueMark)
		lx.vals = append(lx.vals, strings.ReplaceAll(p.Text, "\x00", ""))
	}
	lx.lex(b.String(), 0, true)
	return lx.out, true
}

// fill replaces the placeholders in w by the values' text.
func (lx *lexer) fill(w string) string {
	if lx.opaque || strings.IndexByte(w, valueMark) < 0 {
		return w
	}
	var b strings.Builder
	for {
		i := strings.IndexByte(w, valueMark)
		if i < 0 {
			b.WriteString(w)
			return b.String()
		}
		b.WriteString(w[:i])
		j := strings.IndexByte(w[i+1:], valueMark)
		if j < 0 {
			return b.String()
		}
		if n, err := strconv.Atoi(w[i+1 : i+1+j]); err == nil && n < len(lx.vals) {
			b.WriteString(lx.vals[n])
		}
		w = w[i+2+j:]
	}
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

// word is a word as lexed: quotes removed, placeholders still in.
type word struct {
	text string
	dyn  bool
}

// lex appends the simple commands of s. keepTop false discards the
// top-level words (arithmetic) but still collects nested substitutions.
func (lx *lexer) lex(s string, depth int, keepTop bool) {
	if depth > maxNesting {
		lx.out = append(lx.out, simpleCmd{raw: []string{lx.fill(s)}, unchecked: "Command nesting too deep for policy check"})
		return
	}
	var (
		words   []word
		cur     strings.Builder
		inWord  bool
		quoted  bool
		dyn     bool
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
			if strings.IndexByte(cur.String(), valueMark) >= 0 {
				// The shell ends this here-document at a line only the
				// literal text can hold; the checker cannot follow it.
				lx.out = append(lx.out, simpleCmd{raw: []string{lx.fill(cur.String())}, unchecked: "A value as here-document delimiter cannot be checked by policy"})
			}
			pending = append(pending, heredoc{delim: cur.String(), quoted: quoted, tabs: redir == redirHeredocTabs})
		default:
			words = append(words, word{text: cur.String(), dyn: dyn})
		}
		redir = redirNone
		cur.Reset()
		inWord, quoted, dyn = false, false, false
	}
	end := func() {
		flush()
		redir = redirNone
		if keepTop && len(words) > 0 {
			lx.emit(words, depth)
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
				i = lx.skipHeredocs(s, i, pending, depth)
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
			lx.lex(s[i+2:close], depth+1, true)
			cur.WriteString(s[i:min(close+1, len(s))])
			inWord, dyn = true, true
			i = close + 1
		case c == '<' || c == '>':
			if inWord && redir == redirNone && allDigits(cur.String()) {
				cur.Reset()
				inWord, quoted, dyn = false, false, false
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
			switch {
			case i+1 < len(s) && s[i+1] == valueMark:
				// The reference is preceded by a literal backslash.
				cur.WriteByte('\\')
				inWord = true
				i++
			case i+1 < len(s):
				if s[i+1] != '\n' {
					cur.WriteByte(s[i+1])
					inWord = true
				}
				i += 2
			default:
				i++
			}
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				j = len(s) - i - 1
			}
			cur.WriteString(s[i+1 : i+1+j])
			inWord, quoted = true, true
			i += j + 2
		case c == '$' && i+1 < len(s) && s[i+1] == '\'':
			// ANSI-C quoting: \' does not end it, so it must be read
			// with its escapes or the rest of the line is misread.
			text, next, exact := ansiC(s, i+2)
			cur.WriteString(text)
			inWord, quoted = true, true
			dyn = dyn || !exact
			i = next
		case c == '"':
			i = lx.lexDouble(s, i+1, depth, &cur, &dyn)
			inWord, quoted = true, true
		case c == '`' || (c == '$' && i+1 < len(s) && s[i+1] == '('):
			next := lx.substitution(s, i, depth)
			cur.WriteString(s[i:min(next, len(s))])
			inWord, dyn = true, true
			i = next
		case c == valueMark:
			j := strings.IndexByte(s[i+1:], valueMark)
			end := len(s)
			if j >= 0 {
				end = i + 2 + j
			}
			cur.WriteString(s[i:end])
			inWord = true
			i = end
		default:
			if expands(s, i) {
				dyn = true
			}
			cur.WriteByte(c)
			inWord = true
			i++
		}
	}
	end()
}

// ansiC decodes the $'…' string whose text starts at s[i] and returns
// its value and the index after the closing quote. exact is false when
// the value is not known for sure (a \c control escape, a missing
// closing quote).
func ansiC(s string, i int) (text string, next int, exact bool) {
	var b strings.Builder
	exact = true
	for i < len(s) {
		c := s[i]
		switch {
		case c == '\'':
			return b.String(), i + 1, exact
		case c == '\\' && i+1 < len(s):
			e := s[i+1]
			i += 2
			switch e {
			case 'a':
				b.WriteByte('\a')
			case 'b':
				b.WriteByte('\b')
			case 'e', 'E':
				b.WriteByte(0x1b)
			case 'f':
				b.WriteByte('\f')
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			case 't':
				b.WriteByte('\t')
			case 'v':
				b.WriteByte('\v')
			case '\\', '\'', '"', '?':
				b.WriteByte(e)
			case '0', '1', '2', '3', '4', '5', '6', '7':
				n, j := int(e-'0'), 0
				for ; j < 2 && i < len(s) && s[i] >= '0' && s[i] <= '7'; j++ {
					n = n*8 + int(s[i]-'0')
					i++
				}
				if n&0xff == 0 {
					exact = false
				} else {
					b.WriteByte(byte(n))
				}
			case 'x', 'u', 'U':
				width := 2
				if e == 'u' {
					width = 4
				} else if e == 'U' {
					width = 8
				}
				n, j := 0, 0
				for ; j < width && i < len(s) && isHex(s[i]); j++ {
					n = n*16 + hexVal(s[i])
					i++
				}
				switch {
				case j == 0:
					b.WriteByte('\\')
					b.WriteByte(e)
				case n == 0:
					// bash ends the string at a NUL.
					exact = false
				case e == 'x':
					b.WriteByte(byte(n))
				case !utf8.ValidRune(rune(n)):
					// Not a character: what bash writes is its own.
					exact = false
				default:
					b.WriteRune(rune(n))
				}
			case 'c':
				// A control character; its exact value does not matter
				// but the word is no longer known literally.
				exact = false
				if i < len(s) {
					i++
				}
			default:
				b.WriteByte('\\')
				b.WriteByte(e)
			}
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.String(), i, false
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

func hexVal(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	}
	return int(c-'A') + 10
}

// expands reports whether the unquoted byte s[i] starts an expansion, so
// that the word's text is only known when the shell runs it: a parameter
// ($x, ${x}, $1, $@, $'…'), a glob (*, ?, […]) or a brace expansion
// ({a,b}, {1..3}). A lone '[' (the test command) is no glob.
func expands(s string, i int) bool {
	switch s[i] {
	case '$':
		if i+1 >= len(s) {
			return false
		}
		n := s[i+1]
		return n == '{' || n == '_' || n == '\'' || n == '"' || isAlnum(n) || strings.IndexByte("@*#?$!-", n) >= 0
	case '*', '?':
		return true
	case '[':
		return strings.IndexByte(s[i+1:wordEnd(s, i)], ']') >= 0
	case '{':
		rest := s[i+1 : wordEnd(s, i)]
		close := strings.IndexByte(rest, '}')
		return close > 0 && (strings.IndexByte(rest[:close], ',') >= 0 || strings.Contains(rest[:close], ".."))
	}
	return false
}

// wordEnd returns the index of the first blank or operator byte after i.
func wordEnd(s string, i int) int {
	for j := i + 1; j < len(s); j++ {
		if strings.IndexByte(" \t\r\n;|&<>()", s[j]) >= 0 {
			return j
		}
	}
	return len(s)
}

func isAlnum(c byte) bool {
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
}

// lexDouble reads a double-quoted string starting after its opening quote,
// writing its value to cur, and returns the index after the closing quote.
// Substitutions inside it still run, so they are collected; they and
// parameters make the word dynamic.
func (lx *lexer) lexDouble(s string, i, depth int, cur *strings.Builder, dyn *bool) int {
	for i < len(s) {
		c := s[i]
		switch {
		case c == '"':
			return i + 1
		case c == '\\' && i+1 < len(s):
			switch s[i+1] {
			case '"', '\\', '$', '`':
				cur.WriteByte(s[i+1])
				i += 2
			case '\n':
				i += 2
			default:
				// A value after a backslash keeps its placeholder whole.
				cur.WriteByte('\\')
				i++
			}
		case c == '`' || (c == '$' && i+1 < len(s) && s[i+1] == '('):
			next := lx.substitution(s, i, depth)
			cur.WriteString(s[i:min(next, len(s))])
			*dyn = true
			i = next
		default:
			if c == '$' && expands(s, i) && s[i+1] != '\'' && s[i+1] != '"' {
				*dyn = true
			}
			cur.WriteByte(c)
			i++
		}
	}
	return i
}

// substitution lexes the command substitution (or arithmetic expansion)
// at s[i] and returns the index after it.
func (lx *lexer) substitution(s string, i, depth int) int {
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
		lx.lex(body.String(), depth+1, true)
		return j + 1
	}
	if i+2 < len(s) && s[i+2] == '(' {
		// $(( … )): arithmetic; only substitutions inside it run commands.
		close := matchParen(s, i+3)
		lx.lex(s[i+3:close], depth+1, false)
		next := close + 1
		if next < len(s) && s[next] == ')' {
			next++
		}
		return next
	}
	close := matchParen(s, i+2)
	lx.lex(s[i+2:close], depth+1, true)
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
func (lx *lexer) skipHeredocs(s string, i int, docs []heredoc, depth int) int {
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
				lx.bodySubstitutions(line, depth)
			}
		}
	}
	return i
}

// bodySubstitutions lexes the substitutions of here-document text, where
// quotes are literal.
func (lx *lexer) bodySubstitutions(s string, depth int) {
	for i := 0; i < len(s); {
		switch {
		case s[i] == '\\':
			i += 2
		case s[i] == '`' || (s[i] == '$' && i+1 < len(s) && s[i+1] == '('):
			i = lx.substitution(s, i, depth)
		default:
			i++
		}
	}
}

// reservedWords reports whether w starts a compound command; the command
// it introduces is what runs. The fixed sets of this package are switches
// rather than package-level maps, which would be built at every start.
func reservedWords(w string) bool {
	switch w {
	case "{", "}", "!", "if", "then", "else",
		"elif", "fi", "do", "done", "while",
		"until", "esac":
		return true
	}
	return false
}

// emit records the simple command made of words, plus the scripts it runs
// through sh -c, eval or trap. Assignments and reserved words are read
// before values are filled in: a value is never either.
func (lx *lexer) emit(words []word, depth int) {
	k := 0
skip:
	for k < len(words) {
		switch w := words[k].text; {
		case isAssignment(w) || reservedWords(w):
			k++
			continue
		case w == "function":
			// `function NAME { …`: the name is no command.
			k = min(k+2, len(words))
			continue
		case w == "coproc":
			// `coproc CMD` runs CMD; `coproc NAME { …` names a block.
			k++
			if k+1 < len(words) && words[k+1].text == "{" {
				k++
			}
		default:
			break skip
		}
	}
	c := simpleCmd{}
	for _, w := range words[k:] {
		raw := lx.fill(w.text)
		if t := normalizeToken(raw); t != "" {
			c.raw = append(c.raw, raw)
			c.tokens = append(c.tokens, t)
			c.dyn = append(c.dyn, w.dyn)
			c.val = append(c.val, strings.IndexByte(w.text, valueMark) >= 0)
		}
	}
	if len(c.tokens) == 0 {
		return
	}
	c.invs = invocations(&c)
	for _, inv := range c.invs {
		if c.val[inv.start] && !lx.opaque {
			// A value where the command name goes (`run { @cmd }`) runs
			// as one word, but the author meant it as a command line:
			// check that reading too (first, as mlld does).
			lx.lex(c.raw[inv.start], depth+1, true)
		}
	}
	lx.out = append(lx.out, c)
	for _, inv := range c.invs {
		if script, ok := shellScript(&c, inv); ok {
			// Values are filled in: the inner shell parses them as text.
			lx.lex(script, depth+1, true)
		}
	}
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
