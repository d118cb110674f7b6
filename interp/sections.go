package interp

import (
	"strings"
	"unicode"

	"github.com/guardrun/guardrun/ast"
)

// Markdown section selection for `<file.md # …>` (mlld's section
// selectors):
//
//	# Overview                      one section, child headings included
//	# "Quick Start", Other          several, in document order
//	# "Notes"?, Intro               ? : no error when that one is missing
//	# A, B; !# C                    excludes after `; !#` (or `; #`)
//	# ??   /  # ###??               the titles of all (level-3) headings
//
// Titles match fuzzily: case and punctuation are ignored and a selector
// matches a heading that starts with it; the first such heading wins.

type heading struct {
	level int
	title string
	line  int
}

// markdownHeadings lists the ATX headings of lines, outside fenced code.
func markdownHeadings(lines []string) []heading {
	var hs []heading
	fence := ""
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if fence != "" {
			if strings.HasPrefix(t, fence) {
				fence = ""
			}
			continue
		}
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			fence = t[:3]
			continue
		}
		n := 0
		for n < len(l) && l[n] == '#' {
			n++
		}
		if n == 0 || n > 6 || n < len(l) && l[n] != ' ' && l[n] != '\t' {
			continue
		}
		title := strings.TrimSpace(strings.TrimRight(strings.TrimSpace(l[n:]), "#"))
		hs = append(hs, heading{level: n, title: title, line: i})
	}
	return hs
}

// normTitle keeps the letters and digits of a title, lower-cased.
func normTitle(s string) string {
	var b strings.Builder
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}

type sectionItem struct {
	name     string
	optional bool
}

// splitSelectorList splits a comma list, keeping quoted titles whole.
func splitSelectorList(s string) []sectionItem {
	var out []sectionItem
	var cur strings.Builder
	quoted := false
	flush := func() {
		item := strings.TrimSpace(cur.String())
		cur.Reset()
		if item == "" {
			return
		}
		it := sectionItem{}
		if strings.HasSuffix(item, "?") && !strings.HasSuffix(item, "??") {
			it.optional = true
			item = strings.TrimSpace(strings.TrimSuffix(item, "?"))
		}
		it.name = strings.Trim(item, `"`)
		out = append(out, it)
	}
	for _, r := range s {
		switch {
		case r == '"':
			quoted = !quoted
			cur.WriteRune(r)
		case r == ',' && !quoted:
			flush()
		default:
			cur.WriteRune(r)
		}
	}
	flush()
	return out
}

// cutSelector splits a selector at the `;` that starts its excludes.
func cutSelector(sel string) (include, exclude string) {
	quoted := false
	for i, r := range sel {
		switch {
		case r == '"':
			quoted = !quoted
		case r == ';' && !quoted:
			ex := strings.TrimSpace(sel[i+1:])
			ex = strings.TrimPrefix(ex, "!")
			ex = strings.TrimPrefix(ex, "#")
			return sel[:i], ex
		}
	}
	return sel, ""
}

// selectSections applies a section selector to a markdown text: a string
// for sections, an array of titles for a `??` listing.
func selectSections(text, sel string, pos ast.Pos) (any, error) {
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	hs := markdownHeadings(lines)
	sel = strings.TrimSpace(sel)
	if strings.HasSuffix(sel, "??") {
		level := strings.Count(strings.TrimSuffix(sel, "??"), "#")
		out := []any{}
		for _, h := range hs {
			if level == 0 || h.level == level {
				out = append(out, h.title)
			}
		}
		return out, nil
	}
	inc, exc := cutSelector(sel)
	find := func(name string) int {
		want := normTitle(name)
		for i, h := range hs {
			if strings.HasPrefix(normTitle(h.title), want) {
				return i
			}
		}
		return -1
	}
	// span is the lines of heading i and everything under it.
	span := func(i int) (int, int) {
		end := len(lines)
		for _, h := range hs[i+1:] {
			if h.level <= hs[i].level {
				end = h.line
				break
			}
		}
		return hs[i].line, end
	}
	keep := make([]bool, len(lines))
	any := false
	for _, it := range splitSelectorList(inc) {
		i := find(it.name)
		if i < 0 {
			if it.optional {
				continue
			}
			return nil, newError(KindFile, pos, "check the heading's title, or add ? after it to make it optional",
				"Section %q not found", it.name)
		}
		a, b := span(i)
		for j := a; j < b; j++ {
			keep[j] = true
		}
		any = true
	}
	for _, it := range splitSelectorList(exc) {
		if i := find(it.name); i >= 0 {
			a, b := span(i)
			for j := a; j < b; j++ {
				keep[j] = false
			}
		}
	}
	if !any {
		return "", nil
	}
	// Kept runs are trimmed and joined by one blank line.
	var parts []string
	for j := 0; j < len(lines); {
		if !keep[j] {
			j++
			continue
		}
		k := j
		for k < len(lines) && keep[k] {
			k++
		}
		parts = append(parts, strings.TrimSpace(strings.Join(lines[j:k], "\n")))
		j = k
	}
	return strings.Join(parts, "\n\n"), nil
}

// renameSection replaces a section's heading line with title (`as "# New"`).
func renameSection(s, title string) string {
	_, rest, _ := strings.Cut(s, "\n")
	if rest == "" {
		return title
	}
	return title + "\n" + rest
}
