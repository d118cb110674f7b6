// Package rawfile reads whole files (ReadFile) and opens files
// (OpenFile) with plain system calls, for the short processes of a hook. os.Open registers every file with the
// runtime's poller (and so costs several system calls more than the
// open itself) in case it is a pipe; a policy module, a cached syntax
// tree or a session journal never is, and a hook process opens a dozen
// of them per call. A Cache serves the same reads from memory, while
// the files are unchanged, for a process that makes them on every
// request (guardrun serve).
//
// It imports only the standard library and must stay that way; on
// systems without the Unix calls it falls back to package os.
package rawfile
