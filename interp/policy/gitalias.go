package policy

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// gitCommands are git's own subcommands (and the common git-* programs
// that ship with it): any other word is an alias from git's
// configuration or a git-<word> program.
var gitCommands = map[string]bool{}

func init() {
	for _, c := range strings.Fields(`add am annotate apply archive bisect blame branch bugreport bundle cat-file
		check-attr check-ignore check-mailmap check-ref-format checkout checkout-index cherry cherry-pick citool
		clean clone column commit commit-graph commit-tree config count-objects credential describe diff
		diff-files diff-index diff-tree difftool fast-export fast-import fetch fetch-pack filter-branch
		fmt-merge-msg for-each-ref for-each-repo format-patch fsck gc get-tar-commit-id grep gui hash-object help
		index-pack init instaweb interpret-trailers log ls-files ls-remote ls-tree mailinfo mailsplit
		maintenance merge merge-base merge-file merge-index merge-tree mergetool mktag mktree multi-pack-index mv
		name-rev notes pack-objects pack-refs prune prune-packed pull push range-diff read-tree rebase reflog
		remote repack replace request-pull rerere reset restore rev-list rev-parse revert rm send-email
		shortlog show show-branch show-ref sparse-checkout stage stash status stripspace submodule switch
		symbolic-ref tag update-index update-ref update-server-info var verify-commit verify-pack verify-tag
		version whatchanged worktree write-tree lfs`) {
		gitCommands[c] = true
	}
}

// gitAlias returns the alias git's configuration defines for name: the
// repository's .git/config above dir, then the user's ~/.gitconfig and
// $XDG_CONFIG_HOME/git/config (the repository's wins).
func (x *expander) gitAlias(name string) (string, bool) {
	var files []string
	if x.dir != "" && !x.dirOpaque {
		for d := x.dir; ; d = filepath.Dir(d) {
			if fi, err := os.Stat(filepath.Join(d, ".git")); err == nil && fi.IsDir() {
				files = append(files, filepath.Join(d, ".git", "config"))
				break
			}
			if d == filepath.Dir(d) {
				break
			}
		}
	}
	if home, ok := x.homeDir(); ok && home != "" {
		files = append(files, filepath.Join(home, ".gitconfig"))
		cfg := filepath.Join(home, ".config")
		if x.env.Getenv != nil {
			if v, ok := x.env.Getenv("XDG_CONFIG_HOME"); ok && v != "" {
				cfg = v
			}
		}
		files = append(files, filepath.Join(cfg, "git", "config"))
	}
	for _, f := range files {
		if v, ok := aliasIn(f, name); ok {
			return v, true
		}
	}
	return "", false
}

// aliasIn reads `name = value` of the [alias] section of a git
// configuration file (a subset of git's format: enough for aliases).
func aliasIn(file, name string) (string, bool) {
	fh, err := os.Open(file)
	if err != nil {
		return "", false
	}
	defer fh.Close()
	sc := bufio.NewScanner(fh)
	in := false
	for n := 0; sc.Scan() && n < 10000; n++ {
		l := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(l, "[") {
			in = strings.EqualFold(strings.Trim(l, "[] \t"), "alias")
			continue
		}
		if !in {
			continue
		}
		k, v, ok := strings.Cut(l, "=")
		if !ok || !strings.EqualFold(strings.TrimSpace(k), name) {
			continue
		}
		v = strings.TrimSpace(v)
		if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' {
			v = strings.ReplaceAll(v[1:len(v)-1], `\"`, `"`)
		}
		return v, true
	}
	return "", false
}

// gitAliasScript is the shell text a git alias runs with the words
// after it: `!cmd` runs cmd in a shell, any other alias is git with its
// words in place of the alias.
func gitAliasScript(alias string, rest []string) string {
	var b strings.Builder
	if strings.HasPrefix(alias, "!") {
		b.WriteString(alias[1:])
	} else {
		b.WriteString("git ")
		b.WriteString(alias)
	}
	for _, r := range rest {
		q, err := syntax.Quote(r, syntax.LangBash)
		if err != nil {
			q = r
		}
		b.WriteByte(' ')
		b.WriteString(q)
	}
	return b.String()
}
