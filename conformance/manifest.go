package conformance

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Case is one case directory and what the manifest says about it.
type Case struct {
	// Path is the case directory relative to the cases directory, with
	// forward slashes.
	Path string
	Tags []string
	// Kind is "output" or "error" (informational: the files decide).
	Kind string
	// Scripts are the script file names in the directory.
	Scripts []string
	// ErrorText is the manifest's error_text column ("full", "first-line",
	// "-"); it is reported, never checked.
	ErrorText string
}

// manifestColumns are the columns ReadManifest needs, by header name.
var manifestColumns = []string{"path", "tags", "kind", "scripts"}

// ReadManifest parses a tab-separated manifest with a header line. Columns
// are found by header name, so extra or reordered columns are fine.
func ReadManifest(r io.Reader) ([]Case, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 1024*1024)
	if !sc.Scan() {
		if err := sc.Err(); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("manifest: empty file, want a header line")
	}
	col := map[string]int{}
	for i, name := range strings.Split(strings.TrimRight(sc.Text(), "\r"), "\t") {
		col[strings.TrimSpace(name)] = i
	}
	for _, name := range manifestColumns {
		if _, ok := col[name]; !ok {
			return nil, fmt.Errorf("manifest: header has no %q column", name)
		}
	}
	var cases []Case
	line := 1
	for sc.Scan() {
		line++
		text := strings.TrimRight(sc.Text(), "\r")
		if strings.TrimSpace(text) == "" {
			continue
		}
		f := strings.Split(text, "\t")
		get := func(name string) string {
			i, ok := col[name]
			if !ok || i >= len(f) {
				return ""
			}
			return strings.TrimSpace(f[i])
		}
		c := Case{
			Path:      filepath.ToSlash(get("path")),
			Tags:      splitList(get("tags")),
			Kind:      get("kind"),
			Scripts:   splitList(get("scripts")),
			ErrorText: get("error_text"),
		}
		if c.Path == "" {
			return nil, fmt.Errorf("manifest:%d: empty path", line)
		}
		cases = append(cases, c)
	}
	return cases, sc.Err()
}

// LoadManifest reads the manifest file at path.
func LoadManifest(path string) ([]Case, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	cases, err := ReadManifest(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return cases, nil
}

// Load returns the cases to run from casesDir: from manifest if given, else
// from casesDir/../manifest.tsv when that exists, else by discovery.
func Load(casesDir, manifest string) ([]Case, error) {
	if manifest != "" {
		return LoadManifest(manifest)
	}
	def := filepath.Join(filepath.Dir(filepath.Clean(casesDir)), "manifest.tsv")
	if _, err := os.Stat(def); err == nil {
		return LoadManifest(def)
	}
	return Discover(casesDir)
}

// Filter keeps the cases whose path contains substr (all when it is empty).
func Filter(cases []Case, substr string) []Case {
	if substr == "" {
		return cases
	}
	var out []Case
	for _, c := range cases {
		if strings.Contains(c.Path, substr) {
			out = append(out, c)
		}
	}
	return out
}

func splitList(s string) []string {
	if s == "" || s == "-" {
		return nil
	}
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
