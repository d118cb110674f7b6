package credscan

import (
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestGOROOTMeasure scans the Go distribution's own sources (a larger,
// foreign corpus than this repository) and logs every match, for a
// person to judge: its crypto tests hold real key material in hex. It
// runs only when CREDSCAN_GOROOT is set.
func TestGOROOTMeasure(t *testing.T) {
	if os.Getenv("CREDSCAN_GOROOT") == "" {
		t.Skip("set CREDSCAN_GOROOT=1 to scan $GOROOT/src")
	}
	root := filepath.Join(runtime.GOROOT(), "src")
	files, flagged := 0, 0
	byRule := map[string]int{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !(strings.HasSuffix(path, ".go") || strings.HasSuffix(path, ".md")) || strings.Contains(path, "testdata") {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		files++
		ms := Scan(string(b))
		if len(ms) > 0 {
			flagged++
		}
		for _, m := range ms {
			byRule[m.Rule]++
			v := string(b[m.Start:m.End])
			if len(v) > 60 {
				v = v[:60] + "…"
			}
			t.Logf("%s: %s %q", strings.TrimPrefix(path, root), m.Rule, v)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d files, %d flagged, matches by rule %v", files, flagged, byRule)
}
