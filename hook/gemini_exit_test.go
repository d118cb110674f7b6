package hook

import "testing"

// TestGeminiShellExitCode: a shell command Gemini reports with a non-zero
// exit code is a failed call (its outcome), a zero one is not.
func TestGeminiShellExitCode(t *testing.T) {
	for out, want := range map[string]string{
		"Command: go test ./...\nStdout: FAIL\nExit Code: 1\n": "Exit Code: 1",
		"Command: go test ./...\nStdout: ok\nExit Code: 0\n":   "",
		"Command: ls\nStdout: a\n":                             "",
	} {
		c, err := gemini{}.Decode(map[string]any{"hook_event_name": "AfterTool", "session_id": "s", "tool_name": "run_shell_command",
			"tool_input": map[string]any{"command": "go test ./..."}, "tool_response": map[string]any{"llmContent": out}})
		if err != nil {
			t.Fatal(err)
		}
		if got := c.Events[0].Error; got != want {
			t.Errorf("%q: error %q, want %q", out, got, want)
		}
	}
}
