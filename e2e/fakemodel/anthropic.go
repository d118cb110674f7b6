package fakemodel

import (
	"encoding/json"
	"fmt"
	"net/http"
)

// anthropic answers POST /v1/messages (Claude Code). A request without
// tools is a side request (title, topic, quota) and gets a short text;
// a conversation request gets its script step, streamed as the Messages
// API's server-sent events when it asks for stream.
func (s *Server) anthropic(w http.ResponseWriter, path string, body []byte) {
	var req struct {
		Stream   bool             `json:"stream"`
		Tools    []any            `json:"tools"`
		Messages []map[string]any `json:"messages"`
		Model    string           `json:"model"`
	}
	json.Unmarshal(body, &req)
	var st Step
	if len(req.Tools) == 0 {
		s.record(path, body, false, -1)
		st = Step{Text: "ok"}
	} else {
		items := make([]any, len(req.Messages))
		for i, m := range req.Messages {
			items[i] = m
		}
		turn := countRuns(items, func(m map[string]any) bool { return m["role"] == "assistant" })
		st = s.step(path, body, turn)
	}
	id := fmt.Sprintf("msg_%d", len(s.Requests()))
	var blocks []map[string]any
	stop := "end_turn"
	for i, c := range st.Calls {
		blocks = append(blocks, map[string]any{"type": "tool_use", "id": fmt.Sprintf("toolu_%s_%d", id, i), "name": c.Tool, "input": c.Input})
		stop = "tool_use"
	}
	if len(st.Calls) == 0 {
		blocks = append(blocks, map[string]any{"type": "text", "text": st.Text})
	}
	usage := map[string]any{"input_tokens": 10, "output_tokens": 10, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
	if !req.Stream {
		writeJSON(w, map[string]any{"id": id, "type": "message", "role": "assistant", "model": req.Model,
			"content": blocks, "stop_reason": stop, "stop_sequence": nil, "usage": usage})
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	sse(w, "message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": id, "type": "message", "role": "assistant", "model": req.Model, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil, "usage": usage}})
	for i, b := range blocks {
		switch b["type"] {
		case "text":
			sse(w, "content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "text", "text": ""}})
			sse(w, "content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
				"delta": map[string]any{"type": "text_delta", "text": b["text"]}})
		case "tool_use":
			sse(w, "content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "tool_use", "id": b["id"], "name": b["name"], "input": map[string]any{}}})
			sse(w, "content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
				"delta": map[string]any{"type": "input_json_delta", "partial_json": mustJSON(b["input"])}})
		}
		sse(w, "content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
	}
	sse(w, "message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 10}})
	sse(w, "message_stop", map[string]any{"type": "message_stop"})
}
