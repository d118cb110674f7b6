package interp

import (
	"path/filepath"
	"strings"
)

// protectedNames reports whether name is a path component scripts may
// not write under (a directory, or a file of that name): files that programs other than
// the script execute on their own. Git runs hooks and core.fsmonitor from
// .git on a plain `git status` (and a `.git` file redirects it to another
// repository); the other version control systems do the same; .husky and
// .githooks hold hooks; direnv loads .envrc on `cd`; editors run
// .vscode tasks when the folder opens; .mlld and .guardrun hold the audit
// ledger and tool state. A script without code must not be able to plant
// code through them. Names compare without case and without trailing
// dots or blanks, as case-insensitive file systems and Windows do.
func protectedNames(name string) bool {
	switch name {
	case ".git", ".hg", ".svn", ".bzr", ".jj",
		".husky", ".githooks", ".envrc", ".vscode",
		".mlld", ".guardrun":
		return true
	}
	return false
}

// protectedPart returns the leading part of the base-relative path rel
// that ends in a protected name (".git" for ".git/hooks/pre-commit"), or
// "".
func protectedPart(rel string) string {
	parts := strings.Split(filepath.ToSlash(rel), "/")
	for i, p := range parts {
		if protectedNames(strings.TrimRight(strings.ToLower(p), ". ")) {
			return strings.Join(parts[:i+1], "/")
		}
	}
	return ""
}

// protectedWrite returns the protected part of a write to rel (abs is the
// same path made absolute), or "" when the write may go ahead. Links are
// followed as the write would follow them, so a link inside the base
// directory does not lead into .git unnoticed. Paths the embedder made
// writable (Options.WritableProtected) are let through.
func (f *files) protectedWrite(rel, abs string) string {
	for _, p := range []string{rel, f.realRel(abs)} {
		if part := protectedPart(p); part != "" && !f.writable(p) {
			return part
		}
	}
	return ""
}

// realRel is abs, with every link in its existing part resolved, relative
// to the resolved base directory ("" when it cannot be resolved: the
// lexical check and the os.Root then stand alone).
func (f *files) realRel(abs string) string {
	base, err := filepath.EvalSymlinks(f.base)
	if err != nil {
		return ""
	}
	existing, rest := abs, ""
	for {
		if real, err := filepath.EvalSymlinks(existing); err == nil {
			rel, err := filepath.Rel(base, filepath.Join(real, rest))
			if err != nil {
				return ""
			}
			return rel
		}
		parent := filepath.Dir(existing)
		if parent == existing {
			return ""
		}
		rest = filepath.Join(filepath.Base(existing), rest)
		existing = parent
	}
}

// writable reports whether the embedder let scripts write rel: it is one
// of the writable paths or below one.
func (f *files) writable(rel string) bool {
	rel = strings.ToLower(filepath.ToSlash(filepath.Clean(rel)))
	for _, w := range f.writableProtected {
		w = strings.ToLower(filepath.ToSlash(filepath.Clean(w)))
		if rel == w || strings.HasPrefix(rel, w+"/") {
			return true
		}
	}
	return false
}
