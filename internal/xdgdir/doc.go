// Package xdgdir owns where guardrun keeps its files: the one resolver
// of the XDG base directories ($XDG_CONFIG_HOME, $XDG_STATE_HOME,
// $XDG_CACHE_HOME, $XDG_DATA_HOME) and of guardrun's own directory in
// each. Every package that reads or writes guardrun's config, state,
// cache or data asks it, so that what the hook writes, what the CLI
// reads and what internal/protect keeps the agent from writing are the
// same directories.
//
// A value of an XDG variable that is empty or not an absolute path is
// ignored, as the XDG Base Directory Specification says ("If an
// implementation encounters a relative path in any of these variables it
// should consider the path invalid and ignore it"): the default under
// $HOME is used instead. A home directory that is unset or relative is
// an error, never the current directory.
//
// It imports only the standard library and must import nothing of
// guardrun's: everything else depends on it.
package xdgdir
