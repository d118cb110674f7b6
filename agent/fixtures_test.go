package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the expected files of fixtures/agent")

// Golden event fixtures: fixtures/agent/<case>/ holds the policies
// (*.guard, loaded in name order: user first), events.json (the event
// sequence, each event optionally with the approver's "answer"), an
// optional config.json, and expected.json (one decision per event; with
// -update the test writes it). A case whose config asks for the log also
// has expected-log.jsonl.
const agentFixtures = "../fixtures/agent"

type fixtureStep struct {
	Event
	// Answer is the approver's answer if the event asks: once, always,
	// deny, timeout, error.
	Answer string `json:"answer,omitempty"`
}

type fixtureConfig struct {
	Strict        bool   `json:"strict"`
	Approver      bool   `json:"approver"`
	Log           bool   `json:"log"`
	MaxPrints     int    `json:"max_prints"`
	MaxEventBytes int    `json:"max_event_bytes"`
	MaxRetries    int    `json:"max_retries"`
	Store         string `json:"store"`
	Deadline      string `json:"deadline"`
	// ScriptPriority places the guard scripts among the hooks.
	ScriptPriority int        `json:"script_priority"`
	Hooks          []hookSpec `json:"hooks"`
}

// hookSpec describes a hook of a fixture: a Go hook whose behaviour is
// named by Go, or a command hook running the fixture's script Cmd.
type hookSpec struct {
	Name      string   `json:"name"`
	Events    []Kind   `json:"events"`
	Tool      string   `json:"tool"`
	Path      string   `json:"path"`
	Command   string   `json:"command"`
	Session   string   `json:"session"`
	Priority  int      `json:"priority"`
	Timeout   string   `json:"timeout"`
	Async     bool     `json:"async"`
	Go        string   `json:"go"`
	Arg       string   `json:"arg"`
	Input     any      `json:"input"`
	Cmd       string   `json:"cmd"`
	Pin       string   `json:"pin"`
	MaxOutput int      `json:"max_output"`
	Args      []string `json:"args"`
}

// goHook is the Go hook a fixture names: continue, deny, ask, retry,
// skip, modify (to Input, or Arg appended to the command), context,
// message, error, panic, hang, slow-deny.
func goHook(h hookSpec) HookFunc {
	return func(ctx context.Context, in HookInput) (HookResult, error) {
		switch h.Go {
		case "deny":
			return HookResult{Action: Deny, Reason: h.Arg}, nil
		case "ask":
			return HookResult{Action: Ask, Reason: h.Arg}, nil
		case "retry":
			return HookResult{Action: Retry, Reason: h.Arg, RetryDelay: 250 * time.Millisecond}, nil
		case "skip":
			return HookResult{Action: Skip}, nil
		case "modify":
			if in.Event.Kind == ToolAfter {
				return HookResult{Action: Modify, Output: h.Arg}, nil
			}
			if m, ok := h.Input.(map[string]any); ok {
				return HookResult{Action: Modify, Input: m}, nil
			}
			next := map[string]any{}
			for k, v := range in.Event.Input {
				next[k] = v
			}
			next["command"], _ = next["command"].(string)
			next["command"] = next["command"].(string) + h.Arg
			return HookResult{Action: Modify, Input: next}, nil
		case "deny-if":
			if cmd, _ := in.Event.Input["command"].(string); strings.Contains(cmd, h.Arg) {
				return HookResult{Action: Deny, Reason: "saw " + h.Arg}, nil
			}
			return HookResult{}, nil
		case "context":
			return HookResult{Context: h.Arg}, nil
		case "message":
			return HookResult{Message: h.Arg}, nil
		case "error":
			return HookResult{}, errors.New(h.Arg)
		case "panic":
			panic(h.Arg)
		case "hang":
			<-ctx.Done()
			return HookResult{}, nil
		case "slow-deny":
			time.Sleep(300 * time.Millisecond)
			return HookResult{Action: Deny, Reason: "too late"}, nil
		case "bad-action":
			return HookResult{Action: HookAction(200)}, nil
		}
		return HookResult{}, nil
	}
}

func TestAgentFixtures(t *testing.T) {
	dirs, err := os.ReadDir(agentFixtures)
	require.NoError(t, err)
	n := 0
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		n++
		name := d.Name()
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			runAgentFixture(t, filepath.Join(agentFixtures, name))
		})
	}
	require.NotZero(t, n, "no agent fixtures")
}

// brokenStore fails every update (an unreadable store).
type brokenStore struct{}

func (brokenStore) Update(context.Context, string, func(*Session) error) error {
	return errors.New("session store: cannot read: permission denied")
}

func runAgentFixture(t *testing.T, dir string) {
	var cfg fixtureConfig
	if b, err := os.ReadFile(filepath.Join(dir, "config.json")); err == nil {
		require.NoError(t, json.Unmarshal(b, &cfg))
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.guard"))
	require.NoError(t, err)
	sort.Strings(files)
	require.NotEmpty(t, files, "no policy in %s", dir)
	var steps []fixtureStep
	b, err := os.ReadFile(filepath.Join(dir, "events.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &steps))

	clock := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	var answers []string
	c := Config{Dir: dir, Strict: cfg.Strict, MaxEventBytes: cfg.MaxEventBytes, MaxRetries: cfg.MaxRetries,
		Limits: Limits{MaxPrints: cfg.MaxPrints}, Now: func() time.Time { return clock }, ApprovalTimeout: time.Second}
	if cfg.Deadline != "" {
		c.Deadline, err = time.ParseDuration(cfg.Deadline)
		require.NoError(t, err)
	}
	switch cfg.Store {
	case "file":
		fs, err := NewFileStore(filepath.Join(t.TempDir(), "sessions"))
		require.NoError(t, err)
		c.Store = fs
	case "broken":
		c.Store = brokenStore{}
	default:
		c.Store = NewMemoryStore()
	}
	var logBuf bytes.Buffer
	if cfg.Log {
		c.Log = &logBuf
	}
	if cfg.Approver {
		c.Approver = ApproverFunc(func(ctx context.Context, r Request) (Answer, error) {
			a := ""
			if len(answers) > 0 {
				a = answers[0]
			}
			switch a {
			case "once":
				return AllowOnce, nil
			case "always":
				return AllowAlways, nil
			case "timeout":
				<-ctx.Done()
				return AllowOnce, ctx.Err()
			case "error":
				return DenyIt, errors.New("approval service unreachable")
			case "panic":
				panic("approver bug")
			}
			return DenyIt, nil
		})
	}
	c.ScriptPriority = cfg.ScriptPriority
	for _, hs := range cfg.Hooks {
		h := Hook{Name: hs.Name, Events: hs.Events, Priority: hs.Priority, Async: hs.Async,
			Match: Matcher{Tool: hs.Tool, Path: hs.Path, Command: hs.Command, Session: hs.Session}}
		if hs.Timeout != "" {
			h.Timeout, err = time.ParseDuration(hs.Timeout)
			require.NoError(t, err)
		}
		if hs.Cmd != "" {
			prog, err := filepath.Abs(filepath.Join(dir, hs.Cmd))
			require.NoError(t, err)
			pin := strings.Repeat("0", 64)
			if hs.Pin != "bad" {
				pin, err = FileSHA256(prog)
				require.NoError(t, err)
			}
			h.Command = &CommandHook{Path: prog, Args: hs.Args, SHA256: pin, MaxOutput: hs.MaxOutput}
		} else {
			h.Func = goHook(hs)
		}
		c.Hooks = append(c.Hooks, h)
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		require.NoError(t, err)
		c.Policies = append(c.Policies, Policy{Name: filepath.Base(f), Source: src})
	}
	var got []Decision
	e, err := New(context.Background(), c)
	if err != nil {
		// A policy that does not load denies every event (fail closed):
		// the fixture's expected decisions record that.
		for range steps {
			got = append(got, failed("policy failed to load: "+err.Error()))
		}
	} else {
		defer e.Close()
		for _, s := range steps {
			switch s.Session {
			case "":
				s.Session = "s1"
			case "<none>":
				s.Session = ""
			}
			answers = []string{s.Answer}
			d := e.Decide(context.Background(), s.Event)
			d.PolicyHash = ""
			got = append(got, d)
		}
	}
	gotJSON, err := json.MarshalIndent(got, "", "  ")
	require.NoError(t, err)
	gotJSON = append(gotJSON, '\n')
	// Command hooks are named by absolute path in their errors; the
	// golden files must not depend on where the repository lives.
	if abs, err := filepath.Abs(dir); err == nil {
		gotJSON = bytes.ReplaceAll(gotJSON, []byte(abs), []byte("<case>"))
	}
	compare(t, filepath.Join(dir, "expected.json"), gotJSON)
	if cfg.Log {
		// The policy hash changes with the fixture's bytes; latency with
		// the machine.
		var lines []string
		for _, l := range strings.Split(strings.TrimSpace(logBuf.String()), "\n") {
			var r Record
			require.NoError(t, json.Unmarshal([]byte(l), &r), "log line %q", l)
			require.Equal(t, e.PolicyHash(), r.PolicyHash)
			r.PolicyHash, r.LatencyUS = "<hash>", 0
			b, err := json.Marshal(r)
			require.NoError(t, err)
			lines = append(lines, string(b))
		}
		compare(t, filepath.Join(dir, "expected-log.jsonl"), []byte(strings.Join(lines, "\n")+"\n"))
	}
}

func compare(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		require.NoError(t, os.WriteFile(path, got, 0o644))
		return
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "missing %s (run go test ./agent -run TestAgentFixtures -update)", path)
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", path, diff)
	}
}
