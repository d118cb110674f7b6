package interp

import (
	"strings"

	"github.com/guardrun/guardrun/interp/value"
)

// parseFrontmatter reads the flat `key: value` lines of a YAML
// frontmatter block into `@fm`. Nested YAML is kept as text under its key;
// scripts in the supported subset only read scalar fields.
func parseFrontmatter(src string) *value.Object {
	o := value.NewObject()
	for _, line := range strings.Split(src, "\n") {
		if line == "" || line[0] == ' ' || line[0] == '\t' || line[0] == '#' {
			continue
		}
		key, raw, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		o.Set(strings.TrimSpace(key), yamlScalar(strings.TrimSpace(raw)))
	}
	return o
}

func yamlScalar(s string) any {
	switch {
	case s == "" || s == "null" || s == "~":
		return nil
	case s == "true":
		return true
	case s == "false":
		return false
	case len(s) >= 2 && (s[0] == '"' && s[len(s)-1] == '"' || s[0] == '\'' && s[len(s)-1] == '\''):
		return s[1 : len(s)-1]
	}
	if n, ok := value.ParseNumber(s); ok {
		return n
	}
	return s
}
