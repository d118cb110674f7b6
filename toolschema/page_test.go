package toolschema_test

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/guardrun/guardrun/toolschema"
)

var update = flag.Bool("update", false, "rewrite docs/reference/tools.md's generated tables from the table")

const page = "../docs/reference/tools.md"

// regen is the command that rewrites the page's generated tables.
const regen = "go test ./toolschema -run TestToolsPage -update"

// pageTable renders one host's tools as the page shows them: name,
// labels from the starter collection, fields, and the fields the engine
// reads a path, a command or a patch from.
func pageTable(host string) string {
	var b strings.Builder
	b.WriteString("| tool | labels | fields | engine reads |\n|---|---|---|---|\n")
	quote := func(xs []string) string {
		if len(xs) == 0 {
			return "—"
		}
		return "`" + strings.Join(xs, "`, `") + "`"
	}
	for _, t := range toolschema.All() {
		if t.Host != host {
			continue
		}
		var reads []string
		for _, r := range []struct {
			role toolschema.Role
			name string
		}{{toolschema.RoleCommand, "command"}, {toolschema.RolePath, "path"}, {toolschema.RolePaths, "paths"}, {toolschema.RolePatch, "patch"}} {
			fs := t.FieldsWith(r.role)
			// A command tool is read for its command line only; any
			// other tool for paths and patch text.
			if len(fs) == 0 || contains(t.Labels, "cmd") != (r.role == toolschema.RoleCommand) {
				continue
			}
			reads = append(reads, r.name+": "+quote(fs))
		}
		read := "—"
		if len(reads) > 0 {
			read = strings.Join(reads, "; ")
		}
		fields := quote(t.Fields)
		if t.Open {
			fields = "the tool's own arguments (any field)"
			read = "any path, paths or patch field it has"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", t.Name, quote(t.Labels), fields, read)
	}
	return b.String()
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// TestToolsPage keeps the per-host tables of docs/reference/tools.md
// generated from the table: each block between
// `<!-- toolschema:HOST -->` and `<!-- /toolschema -->` is the host's
// rendered table.
func TestToolsPage(t *testing.T) {
	src, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	md := string(src)
	var out strings.Builder
	seen := map[string]bool{}
	rest := md
	for {
		i := strings.Index(rest, "<!-- toolschema:")
		if i < 0 {
			out.WriteString(rest)
			break
		}
		j := strings.Index(rest[i:], " -->\n")
		if j < 0 {
			t.Fatalf("%s: unterminated marker %q", page, rest[i:min(len(rest), i+40)])
		}
		open := rest[i : i+j+len(" -->\n")]
		host := rest[i+len("<!-- toolschema:") : i+j]
		k := strings.Index(rest[i:], "<!-- /toolschema -->")
		if k < 0 {
			t.Fatalf("%s: no <!-- /toolschema --> after %s", page, strings.TrimSpace(open))
		}
		want := pageTable(host)
		if want == "| tool | labels | fields | engine reads |\n|---|---|---|---|\n" {
			t.Errorf("%s: marker for unknown host %q", page, host)
		}
		seen[host] = true
		out.WriteString(rest[:i])
		out.WriteString(open)
		out.WriteString(want)
		rest = rest[i+k:]
	}
	for _, h := range []string{toolschema.Claude, toolschema.Gemini, toolschema.Codex, toolschema.Cursor, toolschema.MCP} {
		if !seen[h] {
			t.Errorf("%s has no generated table for %s (<!-- toolschema:%s -->)", page, h, h)
		}
	}
	// The opening paragraph names every field the engine reads.
	intro, _, _ := strings.Cut(md, "\n\n## ")
	for _, f := range toolschema.FieldRoles() {
		if !strings.Contains(intro, "`"+f.Name+"`") {
			t.Errorf("%s: the opening paragraphs do not name `%s`, a field the engine reads", page, f.Name)
		}
	}
	if out.String() == md {
		return
	}
	if *update {
		if err := os.WriteFile(page, []byte(out.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s's tool tables differ from toolschema; run `%s`.\n%s", page, regen, lineDiff(md, out.String()))
}

// lineDiff lists the lines only in the page (-) and only in the
// rendering (+), in order.
func lineDiff(have, want string) string {
	h, w := strings.Split(have, "\n"), strings.Split(want, "\n")
	inH, inW := map[string]int{}, map[string]int{}
	for _, l := range h {
		inH[l]++
	}
	for _, l := range w {
		inW[l]++
	}
	var b strings.Builder
	for _, l := range h {
		if inW[l] == 0 {
			b.WriteString("- " + l + "\n")
		}
	}
	for _, l := range w {
		if inH[l] == 0 {
			b.WriteString("+ " + l + "\n")
		}
	}
	return b.String()
}
