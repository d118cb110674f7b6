package hook

import (
	"strings"
	"testing"

	"github.com/guardrun/guardrun/agent"
)

// TestGeminiModelUsage: BeforeModel and AfterModel carry the model's name
// (llm_request.model) and AfterModel the tokens Gemini reported
// (llm_response.usageMetadata); without usageMetadata there is no usage
// and the engine counts the text.
func TestGeminiModelUsage(t *testing.T) {
	for _, tc := range []struct {
		in    string
		model string
		usage *agent.Usage
	}{
		{`{"hook_event_name":"BeforeModel","session_id":"s","llm_request":{"model":"gemini-2.5-pro","messages":[{"role":"user","content":"hi"}]}}`, "gemini-2.5-pro", nil},
		{`{"hook_event_name":"AfterModel","session_id":"s","llm_request":{"model":"gemini-2.5-pro"},"llm_response":{"text":"hello","usageMetadata":{"promptTokenCount":1200,"candidatesTokenCount":34,"totalTokenCount":1234}}}`,
			"gemini-2.5-pro", &agent.Usage{Input: 1200, Output: 34}},
		{`{"hook_event_name":"AfterModel","session_id":"s","llm_response":{"text":"chunk"}}`, "", nil},
		{`{"hook_event_name":"AfterModel","session_id":"s","llm_response":{"usageMetadata":{"promptTokenCount":"many"}}}`, "", nil},
	} {
		raw, err := readEvent(strings.NewReader(tc.in), 1<<20)
		if err != nil {
			t.Fatal(err)
		}
		c, err := gemini{}.Decode(raw)
		if err != nil {
			t.Fatal(err)
		}
		ev := c.Events[0]
		if ev.Model != tc.model || (ev.Usage == nil) != (tc.usage == nil) || ev.Usage != nil && *ev.Usage != *tc.usage {
			t.Errorf("%s: model %q usage %+v, want %q %+v", tc.in, ev.Model, ev.Usage, tc.model, tc.usage)
		}
	}
}
