package policy

import "strings"

// cmdView is a command as deny and danger patterns see it.
type cmdView struct {
	tokens []string
	// dyn marks words only known when the command runs; fed marks
	// further arguments only known then.
	dyn []bool
	fed bool
}

// flagSynonyms maps, per command, a spelling of a flag to the one patterns
// use (tokens are lower-cased, so -R is -r already); ok is false when f
// has no other spelling.
func flagSynonyms(prog, f string) (canon string, ok bool) {
	switch prog {
	case "rm":
		switch f {
		case "--recursive":
			return "-r", true
		case "--force":
			return "-f", true
		}
	case "git":
		switch f {
		case "-f", "--force-with-lease", "+":
			return "--force", true
		}
	case "curl":
		if f == "--upload-file" {
			return "-t", true
		}
	}
	return "", false
}

// matchesCommand reports whether a command matches a deny or danger
// pattern. Flags in the pattern match as a set, in every spelling: for
// `rm:*:-rf`, `rm -fr x`, `rm -r -f x`, `rm -Rfv x` and `rm --recursive
// --force x` all match. With may, a word only known when the command runs
// (and arguments it is fed) may stand for any words, so the pattern
// matches if some expansion would: that is what a deny list must refuse.
// Without may they match only themselves: an opt-in covers what it names.
func matchesCommand(v cmdView, pattern string, may bool) bool {
	if pattern == "*" {
		return true
	}
	return matchesTokens(v, patternTokens(pattern), may)
}

// matchesTokens is matchesCommand of a pattern given as its
// patternTokens (which it does not change).
func matchesTokens(v cmdView, pat []string, may bool) bool {
	if len(pat) == 0 {
		return false
	}
	var want []string
	rest := pat[:1:1]
	for _, t := range pat[1:] {
		if isFlag(pat[0], t) {
			want = append(want, canonicalFlags(pat[0], t)...)
		} else {
			rest = append(rest, t)
		}
	}
	hasStar := contains(rest, "*")
	if len(want) > 0 || (!hasStar && len(rest) == 1) || (hasStar && rest[len(rest)-1] != "*") {
		rest = append(rest, "*")
	}

	toks := make([]string, 0, len(v.tokens)+1)
	wild := make([]bool, 0, len(v.tokens)+1)
	have := map[string]bool{}
	unknown := v.fed
	for i, t := range v.tokens {
		switch {
		case i > 0 && !v.dyn[i] && len(want) > 0 && isFlag(v.tokens[0], t):
			for _, f := range canonicalFlags(v.tokens[0], t) {
				have[f] = true
			}
			continue
		case i > 0 && v.dyn[i]:
			unknown = true
		}
		toks = append(toks, t)
		wild = append(wild, may && v.dyn[i])
	}
	if may && v.fed {
		toks = append(toks, "")
		wild = append(wild, true)
	}
	for _, f := range want {
		if !have[f] && !(may && unknown) {
			return false
		}
	}
	return globWords(toks, wild, rest)
}

// isFlag reports an option word of command prog: -x, --long, and git's
// +refspec (a force push).
func isFlag(prog, t string) bool {
	if len(t) > 1 && t[0] == '-' && t != "--" {
		return true
	}
	return prog == "git" && len(t) > 1 && t[0] == '+'
}

// canonicalFlags splits an option word into the flags it sets: each
// letter of a cluster (-rf is -r and -f), a long option without its
// value, each mapped through the command's synonyms.
func canonicalFlags(prog, t string) []string {
	canon := func(f string) string {
		if s, ok := flagSynonyms(prog, f); ok {
			return s
		}
		return f
	}
	switch {
	case t[0] == '+':
		return []string{canon("+")}
	case strings.HasPrefix(t, "--"):
		name, _, _ := strings.Cut(t, "=")
		return []string{canon(name)}
	}
	out := make([]string, 0, len(t)-1)
	for _, r := range t[1:] {
		out = append(out, canon("-"+string(r)))
	}
	return out
}

// globWords matches words against pattern tokens, where '*' matches any
// run of words and a wild word any run of pattern tokens (it may expand
// to any number of words).
func globWords(toks []string, wild []bool, pat []string) bool {
	n, m := len(toks), len(pat)
	memo := make([]int8, (n+1)*(m+1))
	var match func(i, j int) bool
	match = func(i, j int) bool {
		k := i*(m+1) + j
		if memo[k] != 0 {
			return memo[k] > 0
		}
		r := false
		switch {
		case i == n && j == m:
			r = true
		case j < m && pat[j] == "*":
			r = match(i, j+1) || (i < n && match(i+1, j))
		case i < n && wild[i]:
			r = match(i+1, j) || (j < m && match(i, j+1))
		case i < n && j < m && toks[i] == pat[j]:
			r = match(i+1, j+1)
		}
		memo[k] = -1
		if r {
			memo[k] = 1
		}
		return r
	}
	return match(0, 0)
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
// is not last may be followed by anything. Allow lists match this way:
// word for word, so a word only known at run time never matches one.
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
	return globWords(tokens, make([]bool, len(tokens)), pat)
}

func matchesAny(tokens, patterns []string) (string, bool) {
	for _, p := range patterns {
		if matchesPattern(tokens, p) {
			return p, true
		}
	}
	return "", false
}
