//go:build e2e

package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/guardrun/guardrun/e2e/fakemodel"
)

// host is one agent CLI under test: how to install its configuration
// and guardrun's hooks in a world, how to run one prompt, and its tool
// vocabulary for the script.
type host struct {
	name string
	pkg  string
	// setup writes the host's own settings and runs `guardrun init`.
	setup func(w *world)
	// run runs one non-interactive prompt; resume names a session to
	// continue ("" for a new one).
	run func(w *world, prompt, resume string) runResult
	// sessionID is the session a run reported, for resume.
	sessionID func(w *world, r runResult) string

	shell func(cmd string) fakemodel.Call
	read  func(path string) fakemodel.Call
	write func(path, content string) fakemodel.Call
	edit  func(path, old, new string) fakemodel.Call
	// web fetches a page with the host's own web tool (nil: the host
	// has none that runs locally, where a hook sees it).
	web func(url string) fakemodel.Call
}

// hostLimit bounds one host run: a guardrun ask that the host turns
// into a prompt nobody can answer hangs until then.
const hostLimit = 60 * time.Second

// initHooks runs `guardrun init agent` in the world, with the world's
// hook command override when set.
func (w *world) initHooks(agent string) string {
	args := append([]string{"init", agent}, w.initFlags...)
	switch {
	case w.hookCommand != "":
		args = append(args, "--command", strings.ReplaceAll(w.hookCommand, "HOST", agent))
	case os.Getenv("GUARDRUN_E2E_TRACE") != "":
		args = append(args, "--command", writeTraceHook(w)+" "+agent)
	}
	out := w.guardrun(args...)
	if w.postInit != nil {
		w.postInit()
	}
	return out
}

// writeTraceHook writes a hook command that runs guardrun-hook and
// appends each event the host sent and guardrun's answer (exit status,
// stdout) to ~/hook-trace.log (GUARDRUN_E2E_TRACE=1; the log is shown
// with a failing case's output).
func writeTraceHook(w *world) string {
	p := filepath.Join(w.home, "trace-hook.sh")
	script := `#!/bin/sh
in="$(cat)"
printf '<= %s\n' "$in" >>"$HOME/hook-trace.log"
out="$(printf '%s' "$in" | guardrun-hook "$@")"
code=$?
printf '=> exit %s: %s\n' "$code" "$out" >>"$HOME/hook-trace.log"
printf '%s' "$out"
exit $code
`
	must(w.t, os.WriteFile(p, []byte(script), 0o755))
	return p
}

func writeJSONFile(w *world, path string, v any) {
	b, _ := json.MarshalIndent(v, "", "  ")
	must(w.t, os.MkdirAll(filepath.Dir(path), 0o700))
	must(w.t, os.WriteFile(path, b, 0o600))
}

var claude = &host{
	name: "claude",
	pkg:  "@anthropic-ai/claude-code",
	setup: func(w *world) {
		writeJSONFile(w, filepath.Join(w.home, ".claude", "settings.json"), map[string]any{"skipWebFetchPreflight": true})
		writeJSONFile(w, filepath.Join(w.home, ".claude.json"), map[string]any{"hasCompletedOnboarding": true})
		w.initHooks("claude")
	},
	run: func(w *world, prompt, resume string) runResult {
		args := []string{"-p", prompt, "--output-format", "json", "--dangerously-skip-permissions"}
		if resume != "" {
			args = append(args, "--resume", resume)
		}
		env := []string{
			"ANTHROPIC_BASE_URL=" + w.model.URL, "ANTHROPIC_API_KEY=dummy",
			"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1",
			"DISABLE_TELEMETRY=1", "DISABLE_ERROR_REPORTING=1",
		}
		if isRoot() {
			env = append(env, "IS_SANDBOX=1")
		}
		return w.run(w.limit, env, hostBin(w.t, "@anthropic-ai/claude-code", "claude"), args...)
	},
	sessionID: func(w *world, r runResult) string {
		var v struct {
			SessionID string `json:"session_id"`
		}
		for _, line := range splitLines(r.Out) {
			if json.Unmarshal([]byte(line), &v) == nil && v.SessionID != "" {
				return v.SessionID
			}
		}
		return ""
	},
	shell: func(cmd string) fakemodel.Call {
		return fakemodel.Call{Tool: "Bash", Input: map[string]any{"command": cmd, "description": "run it"}}
	},
	read: func(path string) fakemodel.Call {
		return fakemodel.Call{Tool: "Read", Input: map[string]any{"file_path": path}}
	},
	write: func(path, content string) fakemodel.Call {
		return fakemodel.Call{Tool: "Write", Input: map[string]any{"file_path": path, "content": content}}
	},
	edit: func(path, old, new string) fakemodel.Call {
		return fakemodel.Call{Tool: "Edit", Input: map[string]any{"file_path": path, "old_string": old, "new_string": new}}
	},
	web: func(url string) fakemodel.Call {
		return fakemodel.Call{Tool: "WebFetch", Input: map[string]any{"url": url, "prompt": "Summarise the page."}}
	},
}

// geminiModel is the model named with -m, which skips Gemini CLI's
// model router (a side request to a classifier model).
const geminiModel = "gemini-2.5-flash"

var gemini = &host{
	name: "gemini",
	pkg:  "@google/gemini-cli",
	setup: func(w *world) {
		writeJSONFile(w, filepath.Join(w.home, ".gemini", "settings.json"), map[string]any{
			"security":  map[string]any{"auth": map[string]any{"selectedType": "gemini-api-key"}},
			"privacy":   map[string]any{"usageStatisticsEnabled": false},
			"telemetry": map[string]any{"enabled": false},
			"general":   map[string]any{"disableAutoUpdate": true, "disableUpdateNag": true},
		})
		w.initHooks("gemini")
	},
	run: func(w *world, prompt, resume string) runResult {
		args := []string{"-p", prompt, "--yolo", "--skip-trust", "-m", geminiModel, "--output-format", "json"}
		if resume != "" {
			args = append(args, "--resume", resume)
		}
		env := []string{"GOOGLE_GEMINI_BASE_URL=" + w.model.URL, "GEMINI_API_KEY=dummy", "GEMINI_CLI_NO_RELAUNCH=1"}
		return w.run(w.limit, env, hostBin(w.t, "@google/gemini-cli", "gemini"), args...)
	},
	sessionID: func(w *world, r runResult) string {
		var v struct {
			SessionID string `json:"session_id"`
		}
		if i := strings.Index(r.Out, "{"); i >= 0 && json.Unmarshal([]byte(r.Out[i:]), &v) == nil {
			return v.SessionID
		}
		return ""
	},
	shell: func(cmd string) fakemodel.Call {
		return fakemodel.Call{Tool: "run_shell_command", Input: map[string]any{"command": cmd, "description": "run it"}}
	},
	read: func(path string) fakemodel.Call {
		return fakemodel.Call{Tool: "read_file", Input: map[string]any{"file_path": path}}
	},
	write: func(path, content string) fakemodel.Call {
		return fakemodel.Call{Tool: "write_file", Input: map[string]any{"file_path": path, "content": content}}
	},
	edit: func(path, old, new string) fakemodel.Call {
		return fakemodel.Call{Tool: "replace", Input: map[string]any{"file_path": path, "old_string": old, "new_string": new, "instruction": "edit"}}
	},
	web: func(url string) fakemodel.Call {
		return fakemodel.Call{Tool: "web_fetch", Input: map[string]any{"prompt": "Summarise " + url}}
	},
}

var codex = &host{
	name: "codex",
	pkg:  "@openai/codex",
	setup: func(w *world) {
		w.initHooks("codex")
		if !w.untrustedCodex {
			trustCodexHooks(w)
		}
	},
	run: func(w *world, prompt, resume string) runResult {
		cfg := filepath.Join(w.home, ".codex", "config.toml")
		if old := w.read(cfg); !strings.Contains(old, "[model_providers.fake]") {
			// Top-level keys go before the tables the hook review wrote.
			conf := "model = \"gpt-5.5\"\nmodel_provider = \"fake\"\n\n" + old +
				fmt.Sprintf("\n[model_providers.fake]\nname = \"fake\"\nbase_url = %q\nwire_api = \"responses\"\nenv_key = \"FAKE_KEY\"\nrequest_max_retries = 0\nstream_max_retries = 0\nsupports_websockets = false\n", w.model.URL+"/v1")
			must(w.t, os.MkdirAll(filepath.Dir(cfg), 0o700))
			must(w.t, os.WriteFile(cfg, []byte(conf), 0o600))
		}
		args := []string{"exec", "--dangerously-bypass-approvals-and-sandbox", "--skip-git-repo-check", "--json"}
		if resume != "" {
			args = append(args, "resume", resume)
		}
		args = append(args, prompt)
		env := []string{"FAKE_KEY=dummy", "CODEX_HOME=" + filepath.Join(w.home, ".codex")}
		return w.run(w.limit, env, hostBin(w.t, "@openai/codex", "codex"), args...)
	},
	sessionID: func(w *world, r runResult) string {
		var v struct {
			Type     string `json:"type"`
			ThreadID string `json:"thread_id"`
		}
		for _, line := range splitLines(r.Out) {
			if json.Unmarshal([]byte(line), &v) == nil && v.ThreadID != "" {
				return v.ThreadID
			}
		}
		return ""
	},
	shell: func(cmd string) fakemodel.Call {
		return fakemodel.Call{Tool: "exec_command", Input: map[string]any{"cmd": cmd}}
	},
	read: func(path string) fakemodel.Call {
		return fakemodel.Call{Tool: "exec_command", Input: map[string]any{"cmd": "cat " + path}}
	},
	write: func(path, content string) fakemodel.Call {
		return fakemodel.Call{Tool: "apply_patch", Custom: true, Text: "*** Begin Patch\n*** Add File: " + path + "\n+" + strings.TrimSuffix(content, "\n") + "\n*** End Patch\n"}
	},
	edit: func(path, old, new string) fakemodel.Call {
		return fakemodel.Call{Tool: "apply_patch", Custom: true, Text: "*** Begin Patch\n*** Update File: " + path + "\n@@\n-" + old + "\n+" + new + "\n*** End Patch\n"}
	},
	// Codex's web search runs at the provider, where no hook sees it:
	// the web read a hook sees is a fetch through the shell.
	web: func(url string) fakemodel.Call {
		return fakemodel.Call{Tool: "exec_command", Input: map[string]any{"cmd": "curl -s " + url}}
	},
}
