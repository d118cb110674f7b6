package conformance

import (
	"fmt"
	"path/filepath"
	"strings"
)

// ErrorContainsFile holds the stable parts of an expected error, one per
// line: guardrun's own fixtures use it where error.md would pin wording
// that may change (a hint, a quoted value). It is not part of mlld's
// format.
const ErrorContainsFile = "error-contains.md"

// ErrorContainsParts splits an error-contains.md into its parts: the
// trimmed non-empty lines.
func ErrorContainsParts(text string) []string {
	var out []string
	for _, line := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n") {
		if line = strings.TrimSpace(line); line != "" {
			out = append(out, line)
		}
	}
	return out
}

// CheckErrorContains applies error-contains.md's rule to the first line
// of a run's error (paths relative to the run directory): every part must
// occur in it, and one part must start with the script's name and a colon
// ("example.mld:3:"), so a case cannot pass on the message alone.
func CheckErrorContains(parts []string, script, firstLine string) error {
	if len(parts) == 0 {
		return fmt.Errorf("%s is empty", ErrorContainsFile)
	}
	pinned := false
	for _, p := range parts {
		pinned = pinned || strings.HasPrefix(p, script+":")
	}
	if !pinned {
		return fmt.Errorf("%s must name the position (%s:LINE:) so a case cannot pass on the message alone", ErrorContainsFile, script)
	}
	for _, p := range parts {
		if !strings.Contains(firstLine, p) {
			return fmt.Errorf("error first line does not contain %q; got: %s", p, firstLine)
		}
	}
	return nil
}

// RelativeTo strips the run directory from the paths in msg, so positions
// read "example.mld:2:1" as golden files write them.
func RelativeTo(dir, msg string) string {
	if dir == "" {
		return msg
	}
	msg = strings.ReplaceAll(msg, dir+string(filepath.Separator), "")
	if real, err := filepath.EvalSymlinks(dir); err == nil && real != dir {
		msg = strings.ReplaceAll(msg, real+string(filepath.Separator), "")
	}
	return msg
}

// FirstLine is the first non-blank line of s, trimmed.
func FirstLine(s string) string {
	s = strings.TrimSpace(strings.ReplaceAll(s, "\r\n", "\n"))
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return strings.TrimSpace(s)
}
