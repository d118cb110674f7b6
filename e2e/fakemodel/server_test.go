package fakemodel

import (
	"bufio"
	"net/http"
	"strings"
	"testing"
)

// post sends body to the server's path and returns the data lines of
// the server-sent events it answered with.
func post(t *testing.T, s *Server, path, body string) []string {
	t.Helper()
	resp, err := http.Post(s.URL+path, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var data []string
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			data = append(data, d)
		}
	}
	return data
}

func TestScriptTurnsFollowTheConversation(t *testing.T) {
	s, err := Start([]Step{
		{Calls: []Call{{Tool: "Bash", Input: map[string]any{"command": "echo hi"}}}},
		{Text: "finished"},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()

	first := post(t, s, "/v1/messages", `{"stream":true,"tools":[{}],"messages":[{"role":"user","content":"go"}]}`)
	if got := strings.Join(first, "\n"); !strings.Contains(got, `"name":"Bash"`) || !strings.Contains(got, `"stop_reason":"tool_use"`) {
		t.Fatalf("turn 0 is not the tool call:\n%s", got)
	}
	second := post(t, s, "/v1/messages", `{"stream":true,"tools":[{}],"messages":[{"role":"user","content":"go"},{"role":"assistant","content":[]},{"role":"user","content":[{"type":"tool_result","content":"guardrun: denied"}]}]}`)
	if got := strings.Join(second, "\n"); !strings.Contains(got, "finished") {
		t.Fatalf("turn 1 is not the final text:\n%s", got)
	}
	if !s.Told("guardrun: denied") || s.MainTurns() != 2 {
		t.Fatalf("recorded %d turns, told denial %v", s.MainTurns(), s.Told("guardrun: denied"))
	}

	gem := post(t, s, "/v1beta/models/m:streamGenerateContent?alt=sse", `{"tools":[{}],"contents":[{"role":"user","parts":[{"text":"go"}]}]}`)
	if len(gem) != 1 || !strings.Contains(gem[0], `"functionCall"`) {
		t.Fatalf("gemini turn 0: %q", gem)
	}
	resp := post(t, s, "/v1/responses", `{"tools":[{}],"input":[{"type":"message","role":"user"},{"type":"function_call","call_id":"a"},{"type":"function_call_output","call_id":"a"}]}`)
	if got := strings.Join(resp, "\n"); !strings.Contains(got, "finished") || !strings.Contains(got, "response.completed") {
		t.Fatalf("responses turn 1:\n%s", got)
	}
}
