//go:build e2e

package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"time"
)

// codexHook is one hook as `codex app-server` hooks/list reports it.
type codexHook struct {
	Key         string `json:"key"`
	EventName   string `json:"eventName"`
	Command     string `json:"command"`
	CurrentHash string `json:"currentHash"`
	TrustStatus string `json:"trustStatus"`
}

// appServer is a JSON-RPC session with `codex app-server` over stdio,
// the protocol Codex's own TUI uses for its /hooks review.
type appServer struct {
	w    *world
	cmd  *exec.Cmd
	enc  *json.Encoder
	dec  *bufio.Scanner
	next int
}

func startAppServer(w *world) *appServer {
	w.t.Helper()
	c := exec.Command(hostBin(w.t, "@openai/codex", "codex"), "app-server")
	c.Dir = w.work
	c.Env = append(append([]string(nil), w.env...), "CODEX_HOME="+filepath.Join(w.home, ".codex"))
	in, err := c.StdinPipe()
	must(w.t, err)
	out, err := c.StdoutPipe()
	must(w.t, err)
	must(w.t, c.Start())
	s := &appServer{w: w, cmd: c, enc: json.NewEncoder(in), dec: bufio.NewScanner(out)}
	s.dec.Buffer(make([]byte, 1<<20), 16<<20)
	s.call("initialize", map[string]any{"clientInfo": map[string]any{"name": "guardrun-e2e", "version": "1"}})
	s.enc.Encode(map[string]any{"jsonrpc": "2.0", "method": "initialized"})
	return s
}

// call sends one request and returns its result, skipping notifications.
func (s *appServer) call(method string, params any) json.RawMessage {
	s.w.t.Helper()
	s.next++
	id := s.next
	must(s.w.t, s.enc.Encode(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
	deadline := time.AfterFunc(20*time.Second, func() { s.cmd.Process.Kill() })
	defer deadline.Stop()
	for s.dec.Scan() {
		var m struct {
			ID     *int            `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if json.Unmarshal(s.dec.Bytes(), &m) != nil || m.ID == nil || *m.ID != id {
			continue
		}
		if m.Error != nil {
			s.w.t.Fatalf("codex app-server %s: %s", method, m.Error)
		}
		return m.Result
	}
	s.w.t.Fatalf("codex app-server %s: no answer", method)
	return nil
}

func (s *appServer) close() {
	s.cmd.Process.Kill()
	s.cmd.Wait()
}

// hooks lists the hooks Codex would run in the workspace.
func (s *appServer) hooks() []codexHook {
	var res struct {
		Data []struct {
			Hooks []codexHook `json:"hooks"`
		} `json:"data"`
	}
	json.Unmarshal(s.call("hooks/list", map[string]any{"cwds": []string{s.w.work}}), &res)
	var hs []codexHook
	for _, d := range res.Data {
		hs = append(hs, d.Hooks...)
	}
	return hs
}

// trustCodexHooks does what a user does in Codex's /hooks review ("Trust
// all and continue"): it records each guardrun hook's current hash as
// trusted in ~/.codex/config.toml (hooks.state.<key>.trusted_hash),
// through the app server's config/batchWrite as the TUI does. It returns
// the trust status each hook had before, and fails the test unless every
// hook is trusted after.
func trustCodexHooks(w *world) (before []codexHook) {
	w.t.Helper()
	s := startAppServer(w)
	defer s.close()
	before = s.hooks()
	state := map[string]any{}
	for _, h := range before {
		state[h.Key] = map[string]any{"trusted_hash": h.CurrentHash}
	}
	s.call("config/batchWrite", map[string]any{"edits": []any{
		map[string]any{"keyPath": "hooks.state", "mergeStrategy": "upsert", "value": state},
	}})
	for _, h := range s.hooks() {
		if h.TrustStatus != "trusted" {
			w.t.Fatalf("codex hook %s still %s after trusting it", h.Key, h.TrustStatus)
		}
	}
	return before
}

func (h codexHook) String() string { return fmt.Sprintf("%s=%s", h.EventName, h.TrustStatus) }
