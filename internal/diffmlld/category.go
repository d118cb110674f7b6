package diffmlld

import "regexp"

// features names the construct a (minimized) script exercises, most
// specific first; the first match is the script's feature.
var features = []struct {
	name string
	re   *regexp.Regexp
}{
	{"import", regexp.MustCompile(`(?m)^\s*/?import\b`)},
	{"file loading: glob", regexp.MustCompile(`<[^<>\s]*\*[^<>]*>`)},
	{"file loading: section", regexp.MustCompile(`<[^<>\s]+\s*#[^<>]*>`)},
	{"file loading: as template", regexp.MustCompile(`>\s+as\s+"`)},
	{"file loading", regexp.MustCompile(`<[A-Za-z0-9_./@-]+\.[a-z]+>`)},
	{"while", regexp.MustCompile(`\|\s*while\(`)},
	{"loop / done / continue", regexp.MustCompile(`\bloop\b|\bdone\b|\bcontinue\b`)},
	{"for over object (key/value, mx.key)", regexp.MustCompile(`for\s+@\w+\s*,\s*@\w+|\.mx\.key|_key\b|@mx\.for\.key`)},
	{"for @mx fields", regexp.MustCompile(`@mx\.for|\.mx\.index`)},
	{"for", regexp.MustCompile(`(?m)\bfor\b`)},
	{"spread", regexp.MustCompile(`\.\.\.@`)},
	{"conditional fragment / nullish", regexp.MustCompile(`@[\w.]+\?|\?\?|"\?:`)},
	{"pipe inside interpolation", regexp.MustCompile("[`:][^`\\n]*@\\w+\\|@")},
	{"transformer pipeline", regexp.MustCompile(`\|\s*@\w+`)},
	{"when", regexp.MustCompile(`\bwhen\b`)},
	{"if", regexp.MustCompile(`(?m)^\s*/?if\b`)},
	{"guard / policy / labels", regexp.MustCompile(`\bguard\b|\bpolicy\b|\bvar\s+\w+\s+@|\.mx\.(labels|taint)`)},
	{"exe: code (js/node/cmd/sh)", regexp.MustCompile(`\b(js|node|sh|cmd)\s*\{`)},
	{"exe", regexp.MustCompile(`(?m)^\s*/?exe\b`)},
	{"builtin check / type", regexp.MustCompile(`@(typeof|exists|fileExists|keep|typeInfo)\(|\.is[A-Z]\w*\(`)},
	{"method call", regexp.MustCompile(`@[\w.\[\]]+\.\w+\(`)},
	{"transformer call", regexp.MustCompile(`@(upper|lower|trim|json|pretty|parse|sort|xml|csv|md)\b`)},
	{"output / log / append", regexp.MustCompile(`(?m)^\s*/?(output|log|append)\b`)},
	{"run", regexp.MustCompile(`(?m)^\s*/?run\b`)},
	{"template interpolation", regexp.MustCompile("`[^`]*@|::[^:]*@|\"[^\"]*@\\w")},
	{"field / index access", regexp.MustCompile(`@\w+(\.\w+|\[)`)},
	{"var / show literal", regexp.MustCompile(`.`)},
}

// Feature returns the name of the construct src exercises.
func Feature(src string) string {
	for _, f := range features {
		if f.re.MatchString(src) {
			return f.name
		}
	}
	return "empty"
}
