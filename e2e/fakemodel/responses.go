package fakemodel

import (
	"encoding/json"
	"fmt"
	"net/http"
)

// responses answers POST /v1/responses (Codex CLI, the OpenAI Agents
// SDK) as the Responses
// API's server-sent events: function_call items for tool calls,
// custom_tool_call items for free-form tools (apply_patch), a message
// item for the final text.
func (s *Server) responses(w http.ResponseWriter, path string, body []byte) {
	var req struct {
		Input []any `json:"input"`
		Tools []any `json:"tools"`
	}
	json.Unmarshal(body, &req)
	var st Step
	if len(req.Tools) == 0 {
		s.record(path, body, false, -1)
		st = Step{Text: "ok"}
	} else {
		turn := countRuns(req.Input, func(m map[string]any) bool {
			switch m["type"] {
			case "function_call", "custom_tool_call", "reasoning", "local_shell_call":
				return true
			case "message":
				return m["role"] == "assistant"
			}
			return false
		})
		st = s.step(path, body, turn)
	}
	n := len(s.Requests())
	rid := fmt.Sprintf("resp_%d", n)
	w.Header().Set("Content-Type", "text/event-stream")
	sse(w, "response.created", map[string]any{"type": "response.created", "response": map[string]any{"id": rid}})
	var items []map[string]any
	for i, c := range st.Calls {
		callID := fmt.Sprintf("call_%d_%d", n, i)
		if c.Custom {
			items = append(items, map[string]any{"type": "custom_tool_call", "id": fmt.Sprintf("ctc_%d_%d", n, i),
				"call_id": callID, "name": c.Tool, "input": c.Text, "status": "completed"})
		} else {
			items = append(items, map[string]any{"type": "function_call", "id": fmt.Sprintf("fc_%d_%d", n, i),
				"call_id": callID, "name": c.Tool, "arguments": mustJSON(c.Input), "status": "completed"})
		}
	}
	if len(st.Calls) == 0 {
		items = append(items, map[string]any{"type": "message", "id": fmt.Sprintf("msg_%d", n), "role": "assistant",
			"status": "completed", "content": []any{map[string]any{"type": "output_text", "text": st.Text, "annotations": []any{}}}})
	}
	for i, it := range items {
		sse(w, "response.output_item.added", map[string]any{"type": "response.output_item.added", "output_index": i, "item": it})
		sse(w, "response.output_item.done", map[string]any{"type": "response.output_item.done", "output_index": i, "item": it})
	}
	// The completed response carries its output items, as the API's does
	// (the OpenAI Agents SDK reads them there; Codex from the items).
	sse(w, "response.completed", map[string]any{"type": "response.completed", "response": map[string]any{
		"id": rid, "object": "response", "status": "completed", "output": items, "usage": map[string]any{"input_tokens": 10, "input_tokens_details": nil,
			"output_tokens": 10, "output_tokens_details": nil, "total_tokens": 20}}})
}
