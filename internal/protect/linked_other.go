//go:build !unix

package protect

// Linked reports a hard link to a protected file; where link counts
// cannot be read, it finds none.
func (s Set) Linked(p, cwd string) (root string, ok bool) { return "", false }
