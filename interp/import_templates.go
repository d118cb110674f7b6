package interp

import (
	"path"
	"sort"
	"strings"

	"github.com/guardrun/guardrun/ast"
	"github.com/guardrun/guardrun/interp/value"
)

// templateNamesAllowed are the names a collection's template may use
// besides its parameters (mlld's list).
var templateNamesAllowed = map[string]bool{"mx": true, "pipeline": true, "p": true, "state": true, "payload": true, "input": true}

// importTemplates runs `import templates from "dir" as @name(params)`:
// mlld's template collections. Every .att or .mtt file under dir becomes
// an exe taking params whose body is that template (as `exe @f(params) =
// template "file"`), keyed by its name without the extension; each
// subdirectory becomes a nested object. Keys keep letters, digits, _ and
// -, anything else becomes _. A template that uses a name other than the
// parameters (and @mx, @p, @pipeline, @input, @state, @payload) is an
// error, found at the import.
func (in *interp) importTemplates(e *env, d *ast.ImportDirective) error {
	rel, root, err := in.importRoot(e, d)
	if err != nil {
		return err
	}
	if st, err := root.Stat(rel); err != nil || !st.IsDir() {
		return newError(KindImport, d.Pos, "name a directory of .att or .mtt files",
			"Templates import must target a directory: %s", d.Path)
	}
	if in.opts.ParseTemplate == nil {
		return newError(KindUnexpected, d.Pos, "run scripts through the guardrun facade", "template files need a template parser")
	}
	// dir is the directory to read as the files layer names it, display
	// as the script names it, inner relative to the collection.
	var walk func(dir, display, inner string) (*value.Object, error)
	walk = func(dir, display, inner string) (*value.Object, error) {
		o := value.NewObject()
		ents := readDir(root, dir)
		sort.Slice(ents, func(i, j int) bool { return ents[i].Name() < ents[j].Name() })
		for _, ent := range ents {
			name := ent.Name()
			key := templateKey(name)
			if ent.IsDir() {
				sub, err := walk(path.Join(dir, name), path.Join(display, name), path.Join(inner, name))
				if err != nil {
					return nil, err
				}
				if sub.Len() == 0 {
					continue
				}
				if _, dup := o.Get(key); dup {
					return nil, newError(KindImport, d.Pos, "rename one of them", "Duplicate template group '%s' in %s", key, display)
				}
				o.Set(key, sub)
				continue
			}
			lower := strings.ToLower(name)
			if !strings.HasSuffix(lower, ".att") && !strings.HasSuffix(lower, ".mtt") {
				continue
			}
			if _, dup := o.Get(key); dup {
				return nil, newError(KindImport, d.Pos, "rename one of them", "Duplicate template name '%s' in %s", key, display)
			}
			file := path.Join(display, name)
			src, b, _, err := in.loadOne(e, file, d.Pos)
			if err != nil {
				return nil, err
			}
			lit, err := in.opts.ParseTemplate(file, b, strings.HasSuffix(lower, ".mtt"))
			if err != nil {
				return nil, newError(KindFile, d.Pos, "fix the template file's syntax", "cannot parse template %s: %v", file, err)
			}
			if bad := undeclaredNames(lit, d.Params); len(bad) > 0 {
				return nil, newError(KindImport, d.Pos, "add them to the parameters after `as @"+d.Namespace+"(…)` or remove them from the template",
					"Template '%s' references undeclared variables: %s", path.Join(inner, name), strings.Join(bad, ", "))
			}
			body := &ast.TemplateFile{Pos: d.Pos, Path: &ast.StringLit{Pos: d.Pos, Kind: ast.DoubleQuote,
				Parts: []ast.TemplatePart{&ast.TextPart{Pos: d.Pos, Text: file}}}}
			x := in.newExe(e, &ast.ExeDirective{Pos: d.Pos, Name: key, Params: d.Params, Body: body})
			x.tmpl = &fileTemplate{lit: lit, src: src}
			o.Set(key, x)
		}
		return o, nil
	}
	o, err := walk(rel, d.Path, "")
	if err != nil {
		return err
	}
	if o.Len() == 0 {
		return newError(KindImport, d.Pos, "put .att or .mtt files in it", "No templates found under %s", d.Path)
	}
	return in.defineImported(e, d.Namespace, value.New(o), d.Pos)
}

// templateKey is a collection's key for a file or directory name.
func templateKey(name string) string {
	if i := strings.LastIndexByte(name, '.'); i > 0 {
		name = name[:i]
	}
	name = strings.Map(func(r rune) rune {
		if r == '_' || r == '-' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return '_'
	}, name)
	if name == "" {
		return "template"
	}
	return name
}

// undeclaredNames lists the names a template uses that are neither
// params nor always available, in order of first use.
func undeclaredNames(lit *ast.StringLit, params []ast.Param) []string {
	ok := map[string]bool{}
	for _, p := range params {
		ok[p.Name] = true
	}
	var bad []string
	var visit func(parts []ast.TemplatePart)
	visit = func(parts []ast.TemplatePart) {
		for _, part := range parts {
			switch p := part.(type) {
			case *ast.InterpPart:
				if r := rootRef(p.Value); r != nil && !ok[r.Name] && !templateNamesAllowed[r.Name] {
					ok[r.Name] = true
					bad = append(bad, r.Name)
				}
				visit(p.Snippet)
			case *ast.TemplateFor:
				visit([]ast.TemplatePart{&ast.InterpPart{Value: p.Source}})
				ok[p.Var] = true
				if p.Key != "" {
					ok[p.Key] = true
				}
				visit(p.Body)
			}
		}
	}
	visit(lit.Parts)
	return bad
}
