package conformance

import (
	"os"
	"path/filepath"
	"strings"
)

// strictErrorText applies the stricter error-text check to a script that
// passed mlld's rule: for an error case the manifest marks "full", the
// message must contain all of trim(error.md); for "first-line", its first
// line. Other cases keep their verdict.
func strictErrorText(caseDir, script, errorText string, v Verdict, message string) Verdict {
	if errorText != "full" && errorText != "first-line" {
		return v
	}
	name := "error.md"
	if variant := strings.TrimSuffix(strings.TrimSuffix(strings.TrimPrefix(script, "example"), ".md"), ".mld"); variant != "" {
		name = "error" + variant + ".md"
	}
	raw, err := os.ReadFile(filepath.Join(caseDir, name))
	if err != nil {
		return v
	}
	want := jsTrim(string(raw))
	if errorText == "first-line" {
		want, _, _ = strings.Cut(want, "\n")
		want = jsTrim(want)
	}
	if !strings.Contains(message, want) {
		return fail("strict: error message does not contain "+errorText+" of "+name+": got "+quoteLine(message),
			"want (contained):\n"+want+"\ngot:\n"+message)
	}
	return v
}
