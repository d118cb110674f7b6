// Package sandbox owns the kernel confinement behind `guardrun exec`:
// it turns a profile (guardrun's protected paths, the policy's secret
// paths, whether the session holds a secret, an optional write
// confinement) into a Landlock ruleset, a mount namespace covering the
// workspace's secret files, and for the offline class a seccomp socket
// filter, and restricts the calling process with them, so that every
// program it then executes inherits the restriction.
//
// Landlock only grants rights on hierarchies; a path is denied by
// granting its siblings, one by one, down from the file system's root
// (complement.go). The directories on the way to a denied path are
// "frozen": their existing entries keep their rights, entries created
// in them later have none of the denied rights. Covering the
// workspace's secrets in a mount namespace (hide_linux.go) keeps the
// workspace root from being frozen.
//
// It imports only the standard library, go-landlock, x/sys/unix and
// internal/protect, and must import nothing of the policy engine
// (agent, interp, hook): it runs between a hook's decision and an
// execve, and must stay small, fast and free of policy evaluation.
package sandbox
