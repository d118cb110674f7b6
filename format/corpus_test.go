package format_test

import (
	"bytes"
	"github.com/guardrun/guardrun/internal/testshared"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/guardrun/guardrun/format"
	"github.com/guardrun/guardrun/grammar"
)

// corpora are the script trees the round trip runs over: our fixtures
// and examples, and (GUARDRUN_SHARED set) the two mlld conformance
// corpora read in place.
func corpora(t testing.TB) []string {
	return append([]string{"../fixtures", "../examples"}, testshared.Corpora(t)...)
}

// TestFormatCorpora formats every script that parses and checks the
// acceptance rules: the result parses to the same tree, and formatting
// it again changes nothing.
func TestFormatCorpora(t *testing.T) {
	for _, root := range corpora(t) {
		var files, formatted, kept, unparsable int
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !isScript(path) {
				return err
			}
			files++
			src, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			mode := format.ModeFor(path)
			orig, err := grammar.Parse(path, src, mode)
			if err != nil {
				unparsable++
				return nil
			}
			res, err := format.Source(path, src, mode)
			if err != nil {
				t.Errorf("%s: %v", path, err)
				return nil
			}
			formatted++
			kept += res.Kept
			again, err := grammar.Parse(path, res.Text, mode)
			if err != nil {
				t.Errorf("%s: formatted text does not parse: %v\n%s", path, err, res.Text)
				return nil
			}
			if diff := format.TreeDiff(orig, again); diff != "" {
				t.Errorf("%s: tree changed (-orig +formatted):\n%s", path, diff)
			}
			res2, err := format.Source(path, res.Text, mode)
			if err != nil {
				t.Errorf("%s: second run: %v", path, err)
				return nil
			}
			if !bytes.Equal(res.Text, res2.Text) {
				t.Errorf("%s: not idempotent:\n--- first\n%s\n--- second\n%s", path, res.Text, res2.Text)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %d scripts, %d formatted and stable, %d directives kept as written, %d do not parse (error cases, unsupported syntax, test files)", root, files, formatted, kept, unparsable)
	}
}

func isScript(path string) bool {
	base := filepath.Base(path)
	if strings.HasPrefix(base, "expected") || strings.HasPrefix(base, "error") {
		return false
	}
	return strings.HasSuffix(path, ".mld") || strings.HasSuffix(path, ".md") && strings.HasPrefix(base, "example")
}
