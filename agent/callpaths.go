package agent

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/guardrun/guardrun/sandbox"
	"github.com/guardrun/guardrun/toolschema"
)

// maxGlobMatches bounds the files one glob word of a call resolves to.
const maxGlobMatches = 256

// toolPathFields are the input fields a file tool names files in: one
// path, or a list of paths or globs (Gemini's read_many_files). The
// roles come from toolschema's one table.
var toolPathFields = toolschema.FieldsWith(toolschema.RolePath | toolschema.RolePaths)

// patchFields hold a patch's text: Codex's apply_patch sends it to hooks
// as `command` (a file tool's `command` is never a command line).
var patchFields = toolschema.FieldsWith(toolschema.RolePatch)

// toolPaths are the paths a non-command tool call names, as written:
// its path fields, and the files a patch adds, updates, deletes or
// moves to.
func toolPaths(input map[string]any) []string {
	var out []string
	for _, f := range toolPathFields {
		switch v := input[f].(type) {
		case string:
			if v != "" {
				out = append(out, v)
			}
		case []any:
			for _, x := range v {
				if s, ok := x.(string); ok && s != "" {
					out = append(out, s)
				}
			}
		}
	}
	for _, f := range patchFields {
		if s, ok := input[f].(string); ok {
			out = append(out, patchPaths(s)...)
		}
	}
	return out
}

// patchHeaders start the lines of a patch that name a file: Codex's
// apply_patch format and unified diffs.
var patchHeaders = []string{"*** Add File:", "*** Update File:", "*** Delete File:", "*** Move to:", "+++ ", "--- "}

// patchPaths are the files a patch names. A header's path runs to the
// end of its line; a patch squeezed onto one line (headers and hunks
// separated by spaces) ends a path at the next space.
func patchPaths(patch string) []string {
	var out []string
	oneLine := !strings.Contains(patch, "\n")
	for _, h := range patchHeaders {
		rest := patch
		for {
			i := strings.Index(rest, h)
			if i < 0 {
				break
			}
			rest = rest[i+len(h):]
			p := rest
			if j := strings.IndexAny(p, "\r\n"); j >= 0 {
				p = p[:j]
			}
			p = strings.TrimSpace(p)
			if oneLine {
				if j := strings.IndexAny(p, " \t"); j >= 0 {
					p = p[:j]
				}
			}
			if h == "+++ " || h == "--- " {
				if p == "/dev/null" {
					continue
				}
				if k := strings.IndexByte(p, '\t'); k >= 0 {
					p = p[:k]
				}
				if strings.HasPrefix(p, "a/") || strings.HasPrefix(p, "b/") {
					out = append(out, p[2:])
				}
			}
			if p != "" {
				out = append(out, p)
			}
		}
	}
	return out
}

// expandPath turns a path word as the agent wrote it into absolute,
// cleaned paths: `~`, `~/…`, `$HOME/…` and `${HOME}/…` start at home, a
// relative path at cwd (or, without one, at ws), and a word holding glob
// characters becomes the files it matches (as bash does: `*` and `?` do
// not match a leading dot unless the pattern has one), at most
// maxGlobMatches. A word that stays relative (no cwd and no ws) is
// returned cleaned but relative, for name-based checks.
func expandPath(word, cwd, ws, home string) []string {
	return appendExpandPath(nil, word, cwd, ws, home)
}

// appendExpandPath appends expandPath(word, cwd, ws, home) to dst: the
// paths of a call's words go straight into its lists.
func appendExpandPath(dst []string, word, cwd, ws, home string) []string {
	p := word
	switch {
	case p == "~" || p == "$HOME" || p == "${HOME}":
		p = home
	case strings.HasPrefix(p, "~/"):
		p = filepath.Join(home, p[2:])
	case strings.HasPrefix(p, "$HOME/"):
		p = filepath.Join(home, p[6:])
	case strings.HasPrefix(p, "${HOME}/"):
		p = filepath.Join(home, p[8:])
	}
	if p == "" {
		return dst
	}
	if !filepath.IsAbs(p) {
		if base := firstNonEmpty(cwd, ws); base != "" {
			p = filepath.Join(base, p)
		}
	}
	p = filepath.Clean(p)
	if !strings.ContainsAny(p, "*?[") || !filepath.IsAbs(p) {
		return append(dst, p)
	}
	matches, err := filepath.Glob(p)
	if err != nil || len(matches) == 0 {
		return append(dst, p)
	}
	start := len(dst)
	dst = append(dst, p)
	pat := strings.Split(p, string(filepath.Separator))
	for _, m := range matches {
		if len(dst)-start > maxGlobMatches {
			break
		}
		if hiddenByGlob(pat, strings.Split(m, string(filepath.Separator))) {
			continue
		}
		dst = append(dst, m)
	}
	return dst
}

// hiddenByGlob reports whether bash would not match path m with pattern
// pat because a wildcard segment would have to match a leading dot.
func hiddenByGlob(pat, m []string) bool {
	if len(pat) != len(m) {
		return false
	}
	for i := range pat {
		if strings.HasPrefix(m[i], ".") && !strings.HasPrefix(pat[i], ".") && strings.ContainsAny(pat[i], "*?[") {
			return true
		}
	}
	return false
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// homeDir is the user's home directory, "" when unknown.
func homeDir() string {
	if h := os.Getenv("HOME"); h != "" {
		return h
	}
	h, _ := os.UserHomeDir()
	return h
}

// IsSecretPath reports whether p names a file that holds credentials by
// its name or place: `.env` and `.env.*`, private keys and keystores,
// cloud, registry and tool credentials (the starter policy's list; the
// same as secrets.guard's @secretPath, with a few more names).
// Public halves of key pairs (`*.pub`) are not secret.
func IsSecretPath(p string) bool {
	p = filepath.ToSlash(p)
	if strings.HasPrefix(p, "/proc/") && (strings.HasSuffix(p, "/environ") || strings.HasSuffix(p, "/cmdline")) {
		// A process's environment: every token the agent runs with.
		return true
	}
	base := p[strings.LastIndexByte(p, '/')+1:]
	if strings.HasSuffix(base, ".pub") {
		return false
	}
	if sandbox.IsSecretName(base) {
		return true
	}
	for _, d := range sandbox.SecretDirs() {
		if hasSegments(p, d) {
			return true
		}
	}
	return false
}

// hasSegments reports whether d (one or more whole path segments, like
// ".ssh" or ".config/gcloud") is part of path p: p is d, or starts,
// ends or goes on with it at segment boundaries. It builds no string (it
// runs for every path of every call).
func hasSegments(p, d string) bool {
	for i := 0; ; {
		j := strings.Index(p[i:], d)
		if j < 0 {
			return false
		}
		at := i + j
		end := at + len(d)
		if (at == 0 || p[at-1] == '/') && (end == len(p) || p[end] == '/') {
			return true
		}
		i = at + 1
	}
}
