package taint

import "strings"

// Label kinds (SPEC §4.1). Data labels (secret, pii, untrusted, custom
// labels, exe labels applied to results) propagate; source taint (src:*,
// dir:*) propagates in taint only; operation labels (op:*) describe an
// operation while it is checked and never propagate.

// IsOperation reports whether l is an operation label ("op:cmd:git").
func IsOperation(l string) bool { return strings.HasPrefix(l, "op:") }

// IsSource reports whether t is source taint ("src:js").
func IsSource(t string) bool { return strings.HasPrefix(t, "src:") }

// IsDirectory reports whether t is directory provenance ("dir:/abs").
func IsDirectory(t string) bool { return strings.HasPrefix(t, "dir:") }

// IsFactual reports whether t records a fact about where data came from
// (src:*, dir:*): no label change, privileged or not, removes it.
func IsFactual(t string) bool { return IsSource(t) || IsDirectory(t) }

// IsProtected reports whether removing l needs privilege: secret,
// untrusted and every src:* marker (SPEC §4.1).
func IsProtected(l string) bool { return l == "secret" || l == "untrusted" || IsSource(l) }

// Source taint markers (SPEC §4.3, §10 P18).
const (
	SrcTemplate = "src:template"
	SrcExe      = "src:exe"
	SrcFile     = "src:file"
	SrcExec     = "src:exec"
	SrcCmd      = "src:cmd"
	SrcSh       = "src:sh"
	SrcJS       = "src:js"
	SrcNode     = "src:node"
	SrcPy       = "src:py"
)

// BodyKind is the kind of an exe body or code block, which decides its
// source taint.
type BodyKind int

// Body kinds.
const (
	// BodyTemplate: a template, quoted string or `= @expr` body.
	BodyTemplate BodyKind = iota
	// BodyBlock: a `[ … ]` block or `when [ … ]` body.
	BodyBlock
	// BodyCode: a js/node/py/sh/cmd code body; the language decides.
	BodyCode
)

// SourceFor returns the source taint of a body kind; lang is the code
// language for BodyCode ("javascript" counts as js, "bash" as sh).
func SourceFor(kind BodyKind, lang string) string {
	switch kind {
	case BodyBlock:
		return SrcExe
	case BodyCode:
		switch lang {
		case "js", "javascript":
			return SrcJS
		case "node":
			return SrcNode
		case "sh", "bash":
			return SrcSh
		case "py", "python":
			return SrcPy
		case "cmd":
			return SrcCmd
		}
		return "src:" + lang
	}
	return SrcTemplate
}

// DirTaint returns the dir:* markers for every parent directory of the
// absolute file path abs, nearest first, stopping before the filesystem
// root as mlld does ("/a/b/f" gives dir:/a/b, dir:/a).
func DirTaint(abs string) []string {
	var out []string
	dir := abs
	for {
		i := strings.LastIndexByte(dir, '/')
		if i <= 0 {
			return out
		}
		dir = dir[:i]
		out = append(out, "dir:"+dir)
	}
}

// IsTrust reports whether l is a trust (integrity) label: one that says a
// value is vouched for ("known", "trusted", "verified", or any
// "trust:<name>"), as opposed to a confidentiality or taint label
// (secret, pii, untrusted, custom labels), which says what a value holds
// or where it has been. The two combine differently (SPEC §4.1): a
// taint label is on a value when any of its sources had it (union); a
// trust label only when every source had it (intersection). An agent
// engine gives a tool's output the trust labels the tool declares it
// returns (and those a guard adds), never those of the call's arguments.
func IsTrust(l string) bool {
	return l == "known" || l == "trusted" || l == "verified" || strings.HasPrefix(l, "trust:")
}
