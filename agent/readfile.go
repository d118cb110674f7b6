package agent

import (
	"path/filepath"
	"strings"

	"github.com/guardrun/guardrun/interp/value"
)

// fileRead is the file a tool's output came from, as a denial names it
// (Origin.File): the file that labelled it (why, from readLabels: a
// secret file, or one the session wrote labelled), else a file tool's
// one path. A command's output is named by a file only when one
// labelled it: what else it printed came from the command. "" when no
// one file is known, and when an input of the call carries a
// confidentiality label (vars): the log masks that input, and the file
// it names is not written out elsewhere (the log's brought field, a
// later denial's reason).
func (e *Engine) fileRead(t toolDef, ev Event, facts callFacts, why string, vars []*value.Variable) string {
	for _, v := range vars {
		if v != nil && confidential(v.Security.Labels()) {
			return ""
		}
	}
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
