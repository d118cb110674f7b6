package agent

import (
	"path/filepath"
	"strings"
)

// fileRead is the file a tool's output came from, as a denial names it
// (Origin.File): the file that labelled it (why, from readLabels: a
// secret file, or one the session wrote labelled), else a file tool's
// one path. A command's output is named by a file only when one
// labelled it: what else it printed came from the command. "" when no
// one file is known.
func (e *Engine) fileRead(t toolDef, ev Event, facts callFacts, why string) string {
	p := why
	if p == "" && !contains(t.labels, "cmd") && len(facts.reads) == 1 && len(facts.trees) == 0 {
		p = facts.reads[0]
	}
	if p == "" {
		return ""
	}
	return shownPath(p, e.workspaceOf(ev), homeDir())
}

// shownPath is path p as a denial shows it: relative to workspace ws
// when in it, from ~ when in home, else as it is. p may end in a note
// that names another path ("/w/key (a link to /w/.env)"), shortened
// alike.
func shownPath(p, ws, home string) string {
	for _, root := range []struct{ dir, as string }{{ws, ""}, {home, "~/"}} {
		if root.dir == "" || root.dir == "/" || !filepath.IsAbs(root.dir) {
			continue
		}
		dir := filepath.Clean(root.dir) + "/"
		if rest, ok := strings.CutPrefix(p, dir); ok && rest != "" {
			p = root.as + rest
		}
		p = strings.ReplaceAll(p, " "+dir, " "+root.as)
	}
	return p
}
