package toolschema_test

import (
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/guardrun/guardrun/toolschema"
)

// rules/tools.guard, the starter collection, gives each tool the labels
// the table says: the two cannot drift apart.
func TestStarterCollectionMatchesTable(t *testing.T) {
	src, err := os.ReadFile("../rules/tools.guard")
	if err != nil {
		t.Fatal(err)
	}
	entry := regexp.MustCompile(`"\{([^}]*)\}":\s*\{\s*labels:\s*\[([^\]]*)\]`)
	fromRules := map[string]string{}
	for _, m := range entry.FindAllStringSubmatch(string(src), -1) {
		labels := strings.ReplaceAll(strings.ReplaceAll(m[2], `"`, ""), " ", "")
		for _, name := range strings.Split(m[1], ",") {
			fromRules[name] = labels
		}
	}
	if len(fromRules) < 20 {
		t.Fatalf("read %d tools from tools.guard", len(fromRules))
	}
	fromTable := map[string]string{}
	for _, tool := range toolschema.All() {
		if len(tool.Labels) > 0 {
			fromTable[tool.Name] = strings.Join(tool.Labels, ",")
		}
	}
	for name, labels := range fromRules {
		if strings.Contains(name, "*") {
			continue
		}
		tool, ok := toolschema.Lookup(name)
		if !ok || strings.Join(tool.Labels, ",") != labels {
			t.Errorf("tools.guard gives %s %q; the table has %v", name, labels, tool.Labels)
		}
	}
	var missing []string
	for name := range fromTable {
		if _, ok := fromRules[name]; !ok {
			missing = append(missing, name)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("labelled in the table, absent from tools.guard: %v", missing)
	}
}

func TestLookup(t *testing.T) {
	for name, want := range map[string]string{"Bash": "claude", "read_file": "gemini", "apply_patch": "codex", "Shell": "cursor", "mcp__github__x": "mcp", "MCP:x": "mcp"} {
		tool, ok := toolschema.Lookup(name)
		if !ok || tool.Host != want {
			t.Errorf("Lookup(%q) = %v %v, want host %s", name, tool, ok, want)
		}
	}
	if _, ok := toolschema.Lookup("Bassh"); ok {
		t.Error("Bassh found")
	}
}

// Every command tool has a field the engine reads its command line from,
// and every file tool one it reads a path or patch from: a tool added to
// the table with a new field name cannot go unread.
func TestLabelledToolsHaveRoleFields(t *testing.T) {
	for _, tool := range toolschema.All() {
		for _, l := range tool.Labels {
			switch {
			case l == "cmd" && len(tool.FieldsWith(toolschema.RoleCommand)) == 0:
				t.Errorf("%s %s: a command tool with no command field among %v", tool.Host, tool.Name, tool.Fields)
			case strings.HasPrefix(l, "fs:") && len(tool.FieldsWith(toolschema.RolePath|toolschema.RolePaths|toolschema.RolePatch)) == 0:
				t.Errorf("%s %s: a file tool with no path or patch field among %v", tool.Host, tool.Name, tool.Fields)
			}
		}
	}
}

func TestFieldsWith(t *testing.T) {
	for r, want := range map[toolschema.Role]string{
		toolschema.RolePath:    "file_path,absolute_path,path,target_file,notebook_path",
		toolschema.RoleCommand: "command,cmd,argv,args",
		toolschema.RolePatch:   "input,patch,command",
	} {
		if got := strings.Join(toolschema.FieldsWith(r), ","); got != want {
			t.Errorf("FieldsWith(%d) = %s, want %s", r, got, want)
		}
	}
}
