package protect

import (
	"runtime"
	"strings"
	"unicode/utf8"
)

// needle is a spelling of a protected path that Mentions looks for.
type needle struct {
	text  string
	root  string // what Mentions answers
	start bool   // the match must begin a path element
	end   bound
}

// bound is what must follow a needle's match.
type bound uint8

const (
	boundNone  bound = iota // anything: the element may go on
	boundElem               // the end of a path element
	boundExact              // the end of the path (a trailing / allowed)
)

// Mentions reports whether text (an interpreter's inline code, a patch,
// a command line) spells a protected root recognisably: after
// collapsing repeated slashes and /./ segments, it contains a protected
// root's path with $HOME written as ~, $HOME, ${HOME} or the literal
// home, or the root's distinctive tail (".config/guardrun",
// ".local/state/guardrun", ".claude/settings", ".gemini/settings",
// ".cursor/hooks.json", ".codex/", ".guardrun/"…). Used as a second,
// coarser net for programs whose writes cannot be analysed.
//
// Before matching, quotes and backslashes are dropped (so
// "$HOME"/.config/'guardrun' is seen; on windows backslashes become
// slashes) and dir/../ segments are collapsed too. Beside the roots, it
// finds the directories between the home directory and a root named on
// their own (~/.config, ~/.local/state, as `rm -r` would), but not the
// home directory itself. Text that builds a path from pieces
// ('~/.con' + 'fig') is not recognised: that is what the Covers check on
// analysed writes is for. The answer's root is the root (or ancestor,
// or tail) whose spelling matched.
func (s Set) Mentions(text string) (root string, ok bool) {
	if len(s.needles) == 0 || text == "" {
		return "", false
	}
	t := normalize(text)
	if s.fold {
		t = fold(t)
	}
	for i := range s.needles {
		if n := &s.needles[i]; n.in(t) {
			return n.root, true
		}
	}
	return "", false
}

// in reports whether text holds the needle within its bounds.
func (n *needle) in(text string) bool {
	for off := 0; ; {
		i := strings.Index(text[off:], n.text)
		if i < 0 {
			return false
		}
		i += off
		e := i + len(n.text)
		if (!n.start || i == 0 || !nameByte(text[i-1])) && n.end.holds(text, e) {
			return true
		}
		off = i + 1
	}
}

// holds reports whether the bound holds at offset e of text.
func (b bound) holds(text string, e int) bool {
	switch b {
	case boundElem:
		return e == len(text) || !nameByte(text[e])
	case boundExact:
		if e < len(text) && text[e] == '/' {
			e++
		}
		return e == len(text) || !nameByte(text[e]) && text[e] != '/'
	}
	return true
}

// nameByte reports whether c may be part of a file name element as
// written in code (letters, digits, _ - . and any non-ASCII byte).
func nameByte(c byte) bool {
	return c >= utf8.RuneSelf || c == '_' || c == '-' || c == '.' ||
		'0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// normalize drops quotes and backslashes (windows: turns backslashes
// into slashes), collapses repeated slashes and /./, and removes
// dir/../ pairs.
func normalize(text string) string {
	out := make([]byte, 0, len(text))
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch c {
		case '\'', '"':
			continue
		case '\\':
			if runtime.GOOS != "windows" {
				continue
			}
			c = '/'
		}
		if c == '/' {
			n := len(out)
			switch {
			case n > 0 && out[n-1] == '/':
				continue
			case n > 1 && out[n-1] == '.' && out[n-2] == '/':
				out = out[:n-1]
				continue
			case n > 2 && string(out[n-3:]) == "/..":
				k := n - 4
				for k >= 0 && nameByte(out[k]) {
					k--
				}
				if seg := string(out[k+1 : n-3]); seg != "" && seg != "." && seg != ".." {
					out = out[:k+1]
					continue
				}
			}
		}
		out = append(out, c)
	}
	return string(out)
}
