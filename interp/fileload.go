package interp

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/guardrun/guardrun/ast"
	"github.com/guardrun/guardrun/interp/value"
)

// This file holds `<path>` loading beyond one plain file (mlld's
// "alligator" loads): globs, markdown section selection, `as` templates,
// optional loads, JSON/JSONL parsing and file metadata on `.mx`.

// maxGlobMatches bounds what one glob may load.
const maxGlobMatches = 10000

// loadExpr evaluates a FileLoad.
func (in *interp) loadExpr(e *env, x *ast.FileLoad) (*value.Variable, error) {
	p, err := in.evalString(e, x.Path)
	if err != nil {
		return nil, err
	}
	name := value.Text(p.Data)
	var v *value.Variable
	if isGlobPattern(name) {
		v, err = in.loadGlob(e, name, x)
	} else {
		v, err = in.loadFile(e, name, x)
	}
	if err != nil {
		return nil, err
	}
	if len(x.Access) > 0 {
		return in.applyPath(e, v, x.Access, &ast.Ref{Pos: x.Pos, Name: name})
	}
	return v, nil
}

// isGlobPattern reports whether a load path is a glob.
func isGlobPattern(p string) bool { return strings.ContainsAny(p, "*?[") }

// loadFile loads one file: parsed when JSON or JSONL, with its metadata,
// then narrowed to sections and formatted by the as template.
func (in *interp) loadFile(e *env, name string, x *ast.FileLoad) (*value.Variable, error) {
	v, b, abs, err := in.loadOne(e, name, x.Pos)
	if err != nil {
		if x.Optional && errors.Is(err, fs.ErrNotExist) {
			return value.New(nil), nil
		}
		return nil, err
	}
	if x.As != nil && x.Section == nil {
		// mlld reads `as "…"` after one file as a section's new title
		// (var-rhs asSection): with no section selected, the load fails.
		// A glob's as template formats each file; show ignores it.
		return nil, newError(KindFile, x.Pos, "select a section to rename (<file.md # Section> as \"## Title\"), or load a glob to format each file",
			"Failed to load content: %s", name)
	}
	if err := in.shapeLoaded(e, v, string(b), abs, x); err != nil {
		return nil, err
	}
	return v, nil
}

// shapeLoaded fills in a freshly read file's value: its data (parsed
// JSON/JSONL, or the selected sections) and metadata, then the as template.
func (in *interp) shapeLoaded(e *env, v *value.Variable, text, abs string, x *ast.FileLoad) error {
	rel, _ := filepath.Rel(in.files.base, abs)
	v.Meta = in.fileMeta(rel, abs, text)
	if x.Section != nil {
		sel, err := in.evalString(e, x.Section)
		if err != nil {
			return err
		}
		out, err := selectSections(text, value.Text(sel.Data), x.Pos)
		if err != nil {
			return err
		}
		if s, ok := out.(string); ok && x.As != nil {
			as, err := in.evalString(e, x.As)
			if err != nil {
				return err
			}
			out = renameSection(s, value.Text(as.Data))
		}
		v.Data = out
		v.Meta.Set("text", value.Text(out))
		return nil
	}
	// Loaded data is data-first (mlld): fields and commands see the
	// parsed value (commands as compact JSON); the file's text stays in
	// .mx.text and is what templates and code blocks get.
	v.Data = parseLoaded(rel, text)
	if x.As != nil {
		s, err := in.formatLoaded(e, v, x.As)
		if err != nil {
			return err
		}
		v.Data, v.Text = s, nil
	}
	return nil
}

// parseLoaded is a file's data: .json parsed, .jsonl one value per
// non-empty line, anything else (or JSON that does not parse) its text.
func parseLoaded(rel, text string) any {
	switch strings.ToLower(filepath.Ext(rel)) {
	case ".json":
		if d, err := value.ParseJSON(text); err == nil {
			return d
		}
	case ".jsonl":
		out := []any{}
		for _, line := range strings.Split(text, "\n") {
			if strings.TrimSpace(line) == "" {
				continue
			}
			d, err := value.ParseJSON(line)
			if err != nil {
				return text
			}
			out = append(out, d)
		}
		return out
	}
	return text
}

// fileMeta is the `.mx` metadata of a file at rel (base-relative) / abs.
func (in *interp) fileMeta(rel, abs, text string) *value.Object {
	slash := filepath.ToSlash(rel)
	dir := path.Dir(slash)
	absolute, absDir := abs, filepath.Dir(abs)
	if in.opts.BaseAsRoot {
		absolute, absDir = "/"+slash, path.Clean("/"+dir)
	}
	o := value.NewObject()
	o.Set("filename", path.Base(slash))
	o.Set("relative", "./"+slash)
	o.Set("absolute", absolute)
	o.Set("path", absolute)
	o.Set("dirname", path.Base(absDir))
	relDir := "."
	if dir != "." {
		relDir = "./" + dir
	}
	o.Set("relativeDir", relDir)
	o.Set("absoluteDir", absDir)
	o.Set("ext", path.Ext(slash))
	o.Set("text", text)
	if fm, ok := frontmatterOf(text); ok {
		o.Set("fm", fm)
	}
	switch strings.ToLower(path.Ext(slash)) {
	case ".json", ".jsonl":
	default:
		o.Set("type", "text")
	}
	return o
}

// frontmatterOf reads a leading `---` YAML block.
func frontmatterOf(text string) (*value.Object, bool) {
	if !strings.HasPrefix(text, "---\n") && !strings.HasPrefix(text, "---\r\n") {
		return nil, false
	}
	body := text[strings.IndexByte(text, '\n')+1:]
	end := strings.Index(body, "\n---")
	if end < 0 {
		return nil, false
	}
	return parseFrontmatter(body[:end]), true
}

// formatLoaded applies an `as "…"` template to a loaded file: the template
// is interpolated as usual, then each `<>` (with any `.field` chain after
// it) is replaced by that field of the file (metadata first under .mx).
func (in *interp) formatLoaded(e *env, v *value.Variable, tmpl *ast.StringLit) (string, error) {
	t, err := in.evalString(e, tmpl)
	if err != nil {
		return "", err
	}
	s := value.Text(t.Data)
	var b strings.Builder
	for {
		i := strings.Index(s, "<>")
		if i < 0 {
			b.WriteString(s)
			return b.String(), nil
		}
		b.WriteString(s[:i])
		s = s[i+2:]
		var fields []string
		for len(s) > 1 && s[0] == '.' && isFieldByte(s[1]) {
			j := 1
			for j < len(s) && isFieldByte(s[j]) {
				j++
			}
			fields = append(fields, s[1:j])
			s = s[j:]
		}
		b.WriteString(value.Text(loadedField(v, fields)))
	}
}

func isFieldByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// loadedField reads a field chain of a loaded file for an as template.
func loadedField(v *value.Variable, fields []string) any {
	if len(fields) == 0 {
		if v.Text != nil {
			return *v.Text
		}
		return v.Data
	}
	var cur any
	if fields[0] == "mx" && v.Meta != nil {
		cur = v.Meta
		fields = fields[1:]
	} else {
		cur = v.Data
	}
	for _, f := range fields {
		d, ok := value.Property(structuredData(cur), f)
		if !ok {
			return ""
		}
		cur = d
	}
	return cur
}

// loadGlob loads every file a glob matches, in path order, as an array
// whose elements keep their metadata (ItemMeta) and whose text is the
// files' texts joined by blank lines.
func (in *interp) loadGlob(e *env, pattern string, x *ast.FileLoad) (*value.Variable, error) {
	rel, _, err := in.files.resolve(e.mod.dir, pattern, x.Pos)
	if err != nil {
		return nil, err
	}
	root, err := in.files.open()
	if err != nil {
		return nil, in.files.ioError(err, pattern, x.Pos)
	}
	matches := globMatches(root, filepath.ToSlash(rel))
	if len(matches) > maxGlobMatches {
		return nil, newError(KindFile, x.Pos, "narrow the pattern",
			"%s matches more than %d files", pattern, maxGlobMatches)
	}
	res := value.New(nil)
	items := make([]any, 0, len(matches))
	metas := make([]*value.Object, 0, len(matches))
	texts := make([]string, 0, len(matches))
	for _, m := range matches {
		v, b, abs, err := in.loadOne(e, filepath.Join(in.files.base, filepath.FromSlash(m)), x.Pos)
		if err != nil {
			return nil, err
		}
		if err := in.shapeLoaded(e, v, string(b), abs, x); err != nil {
			return nil, err
		}
		items = append(items, v.Data)
		metas = append(metas, v.Meta)
		texts = append(texts, mxText(v))
		res.Security = res.Security.Merge(v.Security)
	}
	res.Data = items
	joined := strings.Join(texts, "\n\n")
	res.Text = &joined
	res.ItemMeta = metas
	res.Source = sourceGlob
	return res, nil
}

// sourceGlob marks the value of a glob load: shown, it is its files'
// texts.
const sourceGlob = "glob"

// globMatches lists the regular files under root matching pattern (slash
// separated, relative to the root; `**` spans directories). Names starting
// with a dot match only a pattern segment that starts with one, and
// symbolic links are not followed.
func globMatches(root *os.Root, pattern string) []string {
	seen := map[string]bool{}
	var out []string
	var walk func(dir string, segs []string)
	walk = func(dir string, segs []string) {
		if len(out) > maxGlobMatches {
			return
		}
		if len(segs) == 0 {
			return
		}
		seg := segs[0]
		if seg == "**" {
			walk(dir, segs[1:])
			for _, d := range readDir(root, dir) {
				if d.IsDir() && !strings.HasPrefix(d.Name(), ".") {
					walk(path.Join(dir, d.Name()), segs)
				}
			}
			return
		}
		if !isGlobPattern(seg) {
			next := path.Join(dir, seg)
			if len(segs) == 1 {
				if st, err := root.Lstat(next); err == nil && st.Mode().IsRegular() && !seen[next] {
					seen[next] = true
					out = append(out, next)
				}
				return
			}
			walk(next, segs[1:])
			return
		}
		for _, d := range readDir(root, dir) {
			name := d.Name()
			if strings.HasPrefix(name, ".") && !strings.HasPrefix(seg, ".") {
				continue
			}
			if ok, _ := path.Match(seg, name); !ok {
				continue
			}
			full := path.Join(dir, name)
			switch {
			case len(segs) == 1 && d.Type().IsRegular():
				if !seen[full] {
					seen[full] = true
					out = append(out, full)
				}
			case len(segs) > 1 && d.IsDir():
				walk(full, segs[1:])
			}
		}
	}
	walk(".", strings.Split(pattern, "/"))
	sort.Strings(out)
	return out
}

func readDir(root *os.Root, dir string) []fs.DirEntry {
	f, err := root.Open(dir)
	if err != nil {
		return nil
	}
	defer f.Close()
	ents, err := f.ReadDir(-1)
	if err != nil {
		return nil
	}
	return ents
}

// hasFileMeta reports whether v is a loaded file or an array of them.
func hasFileMeta(v *value.Variable) bool { return v.Meta != nil || v.ItemMeta != nil }

// itemMetaAt is the metadata of element i of an array of loaded files.
func itemMetaAt(arr *value.Variable, i int) *value.Object {
	if i >= 0 && i < len(arr.ItemMeta) {
		return arr.ItemMeta[i]
	}
	return nil
}

// withItemMeta gives v, element idx of arr, that element's file metadata.
func withItemMeta(v, arr *value.Variable, idx any) *value.Variable {
	if arr.ItemMeta == nil {
		return v
	}
	if n, ok := idx.(float64); ok {
		i := int(n)
		if i < 0 {
			i += len(arr.ItemMeta)
		}
		v.Meta = itemMetaAt(arr, i)
	}
	return v
}

// collectMeta records the metadata of the n-th collected result of a for
// expression, so that mapping over loaded files keeps it.
func collectMeta(metas []*value.Object, n int, v *value.Variable) []*value.Object {
	if v.Meta == nil && metas == nil {
		return nil
	}
	for len(metas) < n {
		metas = append(metas, nil)
	}
	return append(metas, v.Meta)
}

// interpText is a value as a template interpolates it; the files of a glob
// interpolate as their texts, joined by blank lines.
func interpText(v *value.Variable) string {
	if (v.Source == sourceGlob || v.Source == sourceJSON) && v.Text != nil {
		return *v.Text
	}
	if v.Meta != nil && isStructured(v.Data) {
		if t, ok := v.Meta.Get("text"); ok {
			return value.Text(t)
		}
	}
	return value.Text(v.Data)
}

// loadedText is the file text of a loaded file's value, for the string
// methods that apply to it (`<data.jsonl>.trim()`).
func loadedText(v *value.Variable) (string, bool) {
	if v.Meta == nil {
		return "", false
	}
	t, ok := v.Meta.Get("text")
	if !ok {
		return "", false
	}
	return value.Text(t), true
}

// loadedForCode is what a code block receives for a loaded file, ok false
// for any other value: taken with `.keep`, the file with its metadata
// (keptForCode); parsed JSON, its text, as for parsed command output
// (mlld passes loaded JSON to code as text).
func loadedForCode(v *value.Variable) (any, bool) {
	if v.Meta == nil {
		return nil, false
	}
	if v.Keep {
		return keptForCode(v), true
	}
	if isStructured(v.Data) {
		if t, ok := loadedText(v); ok {
			return t, true
		}
	}
	return nil, false
}

// keptForCode is what a code block receives for a loaded file taken with
// `.keep`: { text, data, type, mx }, `mx` holding its metadata and
// labels. Metadata that cannot be computed is left out rather than guessed.
func keptForCode(v *value.Variable) any {
	o := value.NewObject()
	text, _ := loadedText(v)
	o.Set("text", text)
	o.Set("data", v.Data)
	if t, ok, err := mxField(v, "type", ast.Pos{}); err == nil && ok {
		o.Set("type", t)
	}
	if mx, err := mxOf(v, ast.Pos{}); err == nil {
		o.Set("mx", mx)
	}
	return o
}
