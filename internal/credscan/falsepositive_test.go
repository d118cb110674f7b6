package credscan

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// repoRoot is the repository's root, relative to this package.
const repoRoot = "../.."

// repoTexts returns the repository's Go sources and Markdown files but
// this package's own, by path relative to the root.
func repoTexts(t testing.TB) map[string]string {
	t.Helper()
	texts := map[string]string{}
	err := filepath.WalkDir(repoRoot, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); name == ".git" || name == "node_modules" || path == filepath.Join(repoRoot, "internal", "credscan") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, ".md") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(repoRoot, path)
		texts[filepath.ToSlash(rel)] = string(b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return texts
}

// standIns are the credential-shaped values the repository's tests and
// documentation use in the role of a secret (the policy under test must
// label them), so finding them is right, not a false positive.
var standIns = map[string]string{
	"sk-live-4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c": "hook/session_test.go, agent/example_test.go: the secret a session reads",
	"sk-live-4f9a8b7c6d5e4f3a2b1c":             "README.md, policytest/doc.go: `KEY=…` in a .env and `curl -d 'key=…'`, the README's exfiltration example",
	"sk-live-VERYSECRET-0123456789abcdef":      "agent/store_test.go: the secret whose bytes must never reach the store",
	"q8Zr2Lm5Tx7Vb1Nc4Hd9Kp3Wf6Gy0Js":          "rules/readgaps_test.go: the key in a secret file each reader must label",
	"canary-0b8d2e6f4a":                        "e2e/README.md: a key-shaped value in `curl -d key=…`, the example of a credential shape found in a command's own text",
}

// TestRepositoryFalsePositives scans every Go and Markdown file of the
// repository, none of which holds a credential, and requires a false
// positive rate of zero.
func TestRepositoryFalsePositives(t *testing.T) {
	texts := repoTexts(t)
	if len(texts) < 100 {
		t.Fatalf("found only %d files under %s", len(texts), repoRoot)
	}
	files, bytes, flagged, standInFiles := 0, 0, 0, 0
	for path, text := range texts {
		files++
		bytes += len(text)
		ms := Scan(text)
		falsePositive, standIn := false, false
		for _, m := range ms {
			if v := text[m.Start:m.End]; standIns[v] != "" || strings.HasSuffix(path, "_test.go") {
				// Tests plant credential-shaped values on purpose: the
				// secret a policy must catch. Only sources and documents
				// count for the false-positive rate.
				standIn = true
				continue
			}
			falsePositive = true
			t.Errorf("%s: false positive %s %q", path, m.Rule, text[m.Start:m.End])
		}
		if falsePositive {
			flagged++
		} else if standIn {
			standInFiles++
		}
		if Has(text) != (len(ms) > 0) {
			t.Errorf("%s: Has = %v, Scan found %d", path, !(len(ms) > 0), len(ms))
		}
	}
	t.Logf("%d files, %d bytes: %d with a false positive (rate %.4f), %d with only the stand-in secrets", files, bytes, flagged, float64(flagged)/float64(files), standInFiles)
}
