package fakemodel

import (
	"encoding/json"
	"net/http"
)

// gemini answers :streamGenerateContent (SSE) and :generateContent
// (Gemini CLI). A request without tools is a side request (the CLI's
// next-speaker and loop checks ask for JSON): it gets a JSON text saying
// the user speaks next.
func (s *Server) gemini(w http.ResponseWriter, path string, body []byte, stream bool) {
	var req struct {
		Contents []map[string]any `json:"contents"`
		Tools    []any            `json:"tools"`
	}
	json.Unmarshal(body, &req)
	var st Step
	if len(req.Tools) == 0 {
		s.record(path, body, false, -1)
		st = Step{Text: `{"next_speaker": "user", "reasoning": "The task is done.", "unproductive_state_analysis": "", "unproductive_state_confidence": 0}`}
	} else {
		items := make([]any, len(req.Contents))
		for i, c := range req.Contents {
			items[i] = c
		}
		turn := countRuns(items, func(m map[string]any) bool { return m["role"] == "model" })
		st = s.step(path, body, turn)
	}
	var parts []map[string]any
	for _, c := range st.Calls {
		parts = append(parts, map[string]any{"functionCall": map[string]any{"name": c.Tool, "args": c.Input}})
	}
	if len(st.Calls) == 0 {
		parts = append(parts, map[string]any{"text": st.Text})
	}
	resp := map[string]any{
		"candidates": []any{map[string]any{
			"content":      map[string]any{"role": "model", "parts": parts},
			"finishReason": "STOP", "index": 0}},
		"usageMetadata": map[string]any{"promptTokenCount": 10, "candidatesTokenCount": 10, "totalTokenCount": 20},
		"modelVersion":  "gemini-2.5-flash",
	}
	if !stream {
		writeJSON(w, resp)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	sse(w, "", resp)
}
