// Package toolschema is the one table of the agent hosts' tools: for each
// tool of Claude Code, Gemini CLI, Codex and Cursor, the input fields a
// policy reads as @mx.args and the labels the starter collection
// (rules/tools.guard) gives it. `guardrun check` reads it to find a
// misspelt tool or field, the agent engine its field roles (which field
// names a file, holds a command line or a patch); tests keep
// rules/tools.guard in step with it and generate the tables of
// docs/reference/tools.md from it (go test ./toolschema -run
// TestToolsPage -update).
package toolschema

import "strings"

// Hosts.
const (
	Claude = "claude"
	Gemini = "gemini"
	Codex  = "codex"
	Cursor = "cursor"
	MCP    = "mcp"
)

// Tool is one tool of one host.
type Tool struct {
	Host string
	// Name is the tool's name as the host sends it, or for MCP a pattern
	// (`mcp__*`) that names every tool of every server.
	Name string
	// Fields are the input fields (tool_input keys).
	Fields []string
	// Labels are the labels the starter collection gives the tool.
	Labels []string
	// Open is set when the fields are not known (MCP tools take what
	// their server declares): any field may be read.
	Open bool
}

var (
	cmd  = []string{"cmd"}
	fsR  = []string{"fs:r"}
	fsW  = []string{"fs:w"}
	netW = []string{"net:r", "net:w"}
	mcpL = []string{"tool:w"}
)

// tools is the table. Fields follow the hosts' hook documentation and
// captured events (shared/hook-protocols.md); Gemini's renamed fields
// (absolute_path → file_path, directory → dir_path) are both listed.
var tools = []Tool{
	// Claude Code.
	{Host: Claude, Name: "Bash", Fields: []string{"command", "description", "timeout", "run_in_background", "dangerouslyDisableSandbox"}, Labels: cmd},
	{Host: Claude, Name: "BashOutput", Fields: []string{"bash_id", "filter"}},
	{Host: Claude, Name: "KillShell", Fields: []string{"shell_id"}},
	{Host: Claude, Name: "KillBash", Fields: []string{"shell_id"}},
	{Host: Claude, Name: "Read", Fields: []string{"file_path", "offset", "limit"}, Labels: fsR},
	{Host: Claude, Name: "NotebookRead", Fields: []string{"notebook_path", "cell_id"}, Labels: fsR},
	{Host: Claude, Name: "Write", Fields: []string{"file_path", "content"}, Labels: fsW},
	{Host: Claude, Name: "Edit", Fields: []string{"file_path", "old_string", "new_string", "replace_all"}, Labels: fsW},
	{Host: Claude, Name: "MultiEdit", Fields: []string{"file_path", "edits"}, Labels: fsW},
	{Host: Claude, Name: "NotebookEdit", Fields: []string{"notebook_path", "new_source", "cell_id", "cell_type", "edit_mode"}, Labels: fsW},
	{Host: Claude, Name: "Glob", Fields: []string{"pattern", "path"}},
	{Host: Claude, Name: "Grep", Fields: []string{"pattern", "path", "glob", "type", "output_mode", "-i", "-n", "-A", "-B", "-C", "multiline", "head_limit"}},
	{Host: Claude, Name: "LS", Fields: []string{"path", "ignore"}},
	{Host: Claude, Name: "WebFetch", Fields: []string{"url", "prompt"}, Labels: netW},
	{Host: Claude, Name: "WebSearch", Fields: []string{"query", "allowed_domains", "blocked_domains"}, Labels: netW},
	{Host: Claude, Name: "Task", Fields: []string{"description", "prompt", "subagent_type"}},
	{Host: Claude, Name: "TodoWrite", Fields: []string{"todos"}},
	{Host: Claude, Name: "ExitPlanMode", Fields: []string{"plan"}},
	{Host: Claude, Name: "AskUserQuestion", Fields: []string{"questions"}},
	{Host: Claude, Name: "SlashCommand", Fields: []string{"command"}},
	{Host: Claude, Name: "Skill", Fields: []string{"command", "skill"}},
	{Host: Claude, Name: "ListMcpResourcesTool", Fields: []string{"server"}},
	{Host: Claude, Name: "ReadMcpResourceTool", Fields: []string{"server", "uri"}},
	// Gemini CLI.
	{Host: Gemini, Name: "run_shell_command", Fields: []string{"command", "description", "directory", "dir_path", "is_background"}, Labels: cmd},
	{Host: Gemini, Name: "read_file", Fields: []string{"absolute_path", "file_path", "offset", "limit"}, Labels: fsR},
	{Host: Gemini, Name: "read_many_files", Fields: []string{"paths", "include", "exclude", "recursive", "useDefaultExcludes", "file_filtering_options"}, Labels: fsR},
	{Host: Gemini, Name: "write_file", Fields: []string{"file_path", "absolute_path", "content"}, Labels: fsW},
	{Host: Gemini, Name: "replace", Fields: []string{"file_path", "old_string", "new_string", "expected_replacements", "instruction"}, Labels: fsW},
	{Host: Gemini, Name: "list_directory", Fields: []string{"path", "dir_path", "ignore", "file_filtering_options"}},
	{Host: Gemini, Name: "glob", Fields: []string{"pattern", "path", "dir_path", "case_sensitive", "respect_git_ignore"}},
	{Host: Gemini, Name: "search_file_content", Fields: []string{"pattern", "path", "dir_path", "include"}},
	{Host: Gemini, Name: "web_fetch", Fields: []string{"prompt"}, Labels: netW},
	{Host: Gemini, Name: "google_web_search", Fields: []string{"query"}, Labels: netW},
	{Host: Gemini, Name: "save_memory", Fields: []string{"fact"}},
	{Host: Gemini, Name: "write_todos", Fields: []string{"todos"}},
	// Codex (Claude-style hooks; Bash and apply_patch are its names).
	{Host: Codex, Name: "shell", Fields: []string{"command", "workdir", "timeout", "timeout_ms", "with_escalated_permissions", "justification"}, Labels: cmd},
	{Host: Codex, Name: "exec_command", Fields: []string{"cmd", "command", "workdir", "timeout_ms", "yield_time_ms", "shell"}, Labels: cmd},
	{Host: Codex, Name: "apply_patch", Fields: []string{"input", "patch"}, Labels: fsW},
	{Host: Codex, Name: "update_plan", Fields: []string{"plan", "explanation"}},
	{Host: Codex, Name: "view_image", Fields: []string{"path"}},
	// Cursor (hook adapters give Shell its command and cwd).
	{Host: Cursor, Name: "Shell", Fields: []string{"command", "cwd"}, Labels: cmd},
	{Host: Cursor, Name: "Delete", Fields: []string{"file_path"}, Labels: fsW},
	// MCP: any server, any tool, fields as the server declares them.
	{Host: MCP, Name: "mcp__*", Open: true, Labels: mcpL},
	{Host: MCP, Name: "mcp_*", Open: true, Labels: mcpL},
	{Host: MCP, Name: "MCP:*", Open: true, Labels: mcpL},
}

// All returns the table (callers must not modify it).
func All() []Tool { return tools }

// Lookup finds a tool by the name a host sends: an exact name, or an
// MCP tool by its prefix. Where hosts share a name (Cursor's Read and
// Write are Claude's), the first entry wins; their fields agree.
func Lookup(name string) (Tool, bool) {
	for _, t := range tools {
		if t.Name == name {
			return t, true
		}
	}
	for _, t := range tools {
		if p, ok := strings.CutSuffix(t.Name, "*"); ok && strings.HasPrefix(name, p) && len(name) > len(p) {
			return t, true
		}
	}
	return Tool{}, false
}

// Names are the exact tool names of the table (no MCP patterns).
func Names() []string {
	out := make([]string, 0, len(tools))
	for _, t := range tools {
		if !t.Open {
			out = append(out, t.Name)
		}
	}
	return out
}

// Labelled returns the tools the starter collection gives label l.
func Labelled(l string) []Tool {
	var out []Tool
	for _, t := range tools {
		for _, x := range t.Labels {
			if x == l {
				out = append(out, t)
				break
			}
		}
	}
	return out
}

// Labels are every label the starter collection gives a tool, and the
// ones it gives outputs (returns).
func Labels() []string {
	return []string{"cmd", "fs:r", "fs:w", "net:r", "net:w", "tool:w", "untrusted", "src:mcp"}
}

// Role is what the agent engine reads in an input field, whatever the
// tool: a field's role holds for every tool that has the field, and for
// tools the table does not know (an MCP tool's `path` names a file too).
type Role uint8

// Roles.
const (
	// RolePath: the field names one file (or directory).
	RolePath Role = 1 << iota
	// RolePaths: the field names files by a path, a glob or a list of
	// them (Gemini's read_many_files, a search's directory).
	RolePaths
	// RoleCommand: a command tool's command line, a string or an argv
	// array (`["bash", "-lc", "…"]`).
	RoleCommand
	// RolePatch: a file tool's patch text, whose headers name the files
	// it touches (Codex's apply_patch; it sends hooks the patch as
	// `command`, which a file tool never uses for a command line).
	RolePatch
)

// Field is an input field the engine reads, with its roles.
type Field struct {
	Name  string
	Roles Role
}

// fieldRoles are the fields the engine reads, in the order it looks at
// them (a command tool's first command field found wins; a file tool's
// first single-path field names the file it records). target_file
// (Cursor's agent tools) and argv/args (argv forms some hosts send) are
// in no tool's list above but are read wherever they appear.
var fieldRoles = []Field{
	{"file_path", RolePath},
	{"absolute_path", RolePath},
	{"path", RolePath},
	{"target_file", RolePath},
	{"notebook_path", RolePath},
	{"paths", RolePaths},
	{"include", RolePaths},
	{"glob", RolePaths},
	{"dir_path", RolePaths},
	{"input", RolePatch},
	{"patch", RolePatch},
	{"command", RolePatch | RoleCommand},
	{"cmd", RoleCommand},
	{"argv", RoleCommand},
	{"args", RoleCommand},
}

// FieldRoles returns the role table (callers must not modify it).
func FieldRoles() []Field { return fieldRoles }

// FieldsWith are the names of the fields having any of the roles in r,
// in the order the engine looks at them.
func FieldsWith(r Role) []string {
	var out []string
	for _, f := range fieldRoles {
		if f.Roles&r != 0 {
			out = append(out, f.Name)
		}
	}
	return out
}

// FieldsWith are the tool's own fields having any of the roles in r,
// in the order the engine looks at them.
func (t Tool) FieldsWith(r Role) []string {
	var out []string
	for _, f := range fieldRoles {
		if f.Roles&r == 0 {
			continue
		}
		for _, name := range t.Fields {
			if f.Name == name {
				out = append(out, name)
				break
			}
		}
	}
	return out
}
