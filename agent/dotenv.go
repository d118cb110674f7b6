package agent

import (
	"path/filepath"
	"slices"
	"strings"

	"github.com/guardrun/guardrun/internal/credscan"
	"github.com/guardrun/guardrun/interp/value"
)

// publicEnvPrefixes name the variables a front-end framework builds into
// the code it ships to every browser (Next.js, Vite, Create React App,
// SvelteKit, Expo, Gatsby, Nuxt, Vue CLI): a value under one of them is
// public by the framework's contract, even in a file that is secret.
var publicEnvPrefixes = []string{"NEXT_PUBLIC_", "VITE_", "REACT_APP_", "PUBLIC_", "EXPO_PUBLIC_", "GATSBY_", "NUXT_PUBLIC_", "VUE_APP_"}

// isDotenv reports a dotenv file, named as a denial shows it (.env,
// .env.local, prod.env; a note after the path is ignored).
func isDotenv(shown string) bool {
	p, _, _ := strings.Cut(shown, " (")
	b := filepath.Base(p)
	return b == ".env" || strings.HasPrefix(b, ".env.") || strings.HasSuffix(b, ".env")
}

// splitPublicEnv parts what a dotenv file's read returned: secret is the
// output with its public lines blanked (every text of it: a host wraps
// the content in an object), public those lines alone ("" when there are
// none). A line is public when its key has a public prefix and the line
// holds nothing credential-shaped (a key a developer put under a public
// name by mistake stays secret).
func splitPublicEnv(data any) (secret any, public string) {
	var pub strings.Builder
	var walk func(x any) any
	walk = func(x any) any {
		switch t := x.(type) {
		case string:
			return publicLines(t, &pub)
		case map[string]any:
			out := make(map[string]any, len(t))
			for k, v := range t {
				out[k] = walk(v)
			}
			return out
		case []any:
			out := make([]any, len(t))
			for i, v := range t {
				out[i] = walk(v)
			}
			return out
		}
		return x
	}
	secret = walk(data)
	return secret, pub.String()
}

// publicLines returns text without its public dotenv lines (each left
// empty), and writes them to pub.
func publicLines(text string, pub *strings.Builder) string {
	if !strings.Contains(text, "=") {
		return text
	}
	lines := strings.Split(text, "\n")
	changed := false
	for i, l := range lines {
		if publicEnvLine(l) {
			pub.WriteString(l)
			pub.WriteByte('\n')
			lines[i] = ""
			changed = true
		}
	}
	if !changed {
		return text
	}
	return strings.Join(lines, "\n")
}

func publicEnvLine(l string) bool {
	t := strings.TrimSpace(l)
	t = strings.TrimPrefix(t, "export ")
	key, _, ok := strings.Cut(t, "=")
	if !ok || key == "" || strings.ContainsAny(key, " \t") {
		return false
	}
	for _, p := range publicEnvPrefixes {
		if strings.HasPrefix(key, p) && len(key) > len(p) {
			return !credscan.Has(l)
		}
	}
	return false
}

// rememberDotenv remembers what a dotenv file's read returned (labels
// holding `secret`): its public lines with labels but `secret`, the rest
// with labels. It reports false when data holds no public line (the
// caller remembers it whole).
func (e *Engine) rememberDotenv(s *Session, ev Event, file string, labels []string, data any, fields map[string][]string) bool {
	secret, public := splitPublicEnv(goValue(data))
	if public == "" {
		return false
	}
	e.rememberFields(s, ev, file, labels, value.FromGo(secret), fields)
	rest := slices.DeleteFunc(slices.Clone(labels), func(l string) bool { return l == "secret" })
	e.rememberFields(s, ev, file, rest, public, nil)
	return true
}
