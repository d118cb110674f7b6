// Package protect owns the set of paths an agent's tool calls may never
// write, because writing them would let the guarded switch off its
// guard: guardrun's config, state, cache and data directories (its
// policies, trust store, sessions and decision log), its installed
// binaries, and the hosts' hook settings (Claude Code, Gemini CLI,
// Codex, Cursor) in the home directory and in the workspace.
//
// ForAgent builds the Set once per hook process; Set.Covers decides one
// path as the agent spelled it (~, $HOME, relative, //, /./, ..,
// symbolic links, case on case-insensitive file systems), and
// Set.Mentions is a coarser net for text whose writes cannot be
// analysed (inline interpreter code, patches).
//
// Case: on darwin and windows every comparison is case-insensitive
// (their default file systems are; on a case-sensitive volume that only
// protects more). Elsewhere a root is compared case-insensitively only
// when a probe at ForAgent time finds the file system at its deepest
// existing ancestor case-insensitive (the ancestor's name looked up with
// its case swapped is the same file). Whatever the case rules, an
// existing protected file or directory is also recognised by identity
// (device and inode) when a path's walk meets it, which covers case,
// Unicode normalisation, bind mounts and hard links of existing files;
// the string comparisons are what protect roots that do not exist yet.
//
// It imports only the standard library and internal/xdgdir, and must
// import nothing else of guardrun's: the hook asks it on every call, and
// it must stay cheap and free of policy.
package protect
