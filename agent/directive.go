package agent

import (
	"regexp"
	"strings"
	"sync"

	"github.com/guardrun/guardrun/interp/policy"
)

// Injected is the label of a session that has read third-party content
// telling its reader to run code straight from the network: a command
// line in a web page, an MCP result or a fetcher's output that pipes a
// download into a shell or interpreter, hands it to one as a process
// substitution, or downloads a script and runs it (`curl -s URL | sh`,
// `bash <(wget -qO- URL)`). That is what a prompt injection aimed at a
// coding agent says; a session that has read one is under attack, and
// the starter policy asks before every shell command it runs. Like
// `untrusted`, it is context-wide and comes from the content, never from
// a command's spelling.
const Injected = "injected"

// Bounds of remoteCodeLine: the text it reads of one output, and the
// candidate command lines it analyses in it.
const (
	maxDirectiveText  = 1 << 20
	maxDirectiveLines = 64
)

// remoteCodeLine returns a command line in the strings of data (a tool's
// output, as decoded) that runs as code what it downloads, or "". A
// candidate starts at a word naming a program that reaches the network
// (curl, wget, aria2c…) and runs to the end of its line, or to the
// first backquote or full stop when the whole rest is not shell (the
// prose around a command in a page); it counts when the shell analysis
// says the line runs what it fetched (policy.CommandFacts.RunsFetched),
// the same effect a command is decided on.
func remoteCodeLine(data any) string {
	budget, lines := maxDirectiveText, maxDirectiveLines
	var found string
	var walk func(v any)
	walk = func(v any) {
		if found != "" || budget <= 0 || lines <= 0 {
			return
		}
		switch v := v.(type) {
		case string:
			if len(v) > budget {
				v = v[:budget]
			}
			budget -= len(v)
			found = directiveIn(v, &lines)
		case map[string]any:
			for _, x := range v {
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	walk(data)
	return found
}

// directiveIn is remoteCodeLine for one text, analysing at most *lines
// candidates.
func directiveIn(text string, lines *int) string {
	for len(text) > 0 && *lines > 0 {
		line := text
		if i := strings.IndexByte(text, '\n'); i >= 0 {
			line, text = text[:i], text[i+1:]
		} else {
			text = ""
		}
		if strings.IndexByte(line, '<') >= 0 {
			line = htmlTag().ReplaceAllString(line, " ")
		}
		// starts are the last few words' offsets: a command may begin a
		// word or two before its downloader (`bash <(curl …)`).
		var starts [3]int
		for off := 0; off < len(line) && *lines > 0; {
			start, end := nextWord(line, off)
			if start < 0 {
				break
			}
			off = end
			starts[0], starts[1], starts[2] = starts[1], starts[2], start
			if !policy.Is(strings.ToLower(line[start:end]), policy.Network) {
				continue
			}
			*lines--
			for i := len(starts) - 1; i >= 0; i-- {
				// The nearest start first: the tightest line.
				rest := line[starts[i]:]
				for _, cand := range []string{rest, cutAt(rest, "`"), cutAt(rest, ". ")} {
					if cand != "" && runsDownload(cand) {
						return strings.TrimSpace(cand)
					}
				}
			}
		}
	}
	return ""
}

// htmlTag matches an HTML tag around a command in a page (<code>, </pre>),
// compiled on first use: a hook process that reads no page never pays.
var htmlTag = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`</?[a-zA-Z][a-zA-Z0-9]*>`) })

// runsDownload reports a command line that runs as code what it
// downloads: piped or handed as a process substitution to a shell or an
// interpreter (policy.CommandFacts.RunsFetched), or saved to a file it
// then runs (fetchedRun, every file counting as new: the line is text,
// not a command about to run here).
func runsDownload(line string) bool {
	f := policy.CommandLineFacts(line)
	return f.RunsFetched != "" || fetchedRun(f.Commands, func(string) bool { return true }) != ""
}

// nextWord is the span of the first word of line at or after off: a run
// of letters, digits, `-`, `_` and `.` (a program's name), or -1.
func nextWord(line string, off int) (int, int) {
	isWord := func(c byte) bool {
		return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.'
	}
	for off < len(line) && !isWord(line[off]) {
		off++
	}
	if off >= len(line) {
		return -1, -1
	}
	end := off
	for end < len(line) && isWord(line[end]) {
		end++
	}
	return off, end
}

// cutAt is s up to the first sep, or "" when s has none.
func cutAt(s, sep string) string {
	if i := strings.Index(s, sep); i >= 0 {
		return s[:i]
	}
	return ""
}
