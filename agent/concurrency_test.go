package agent

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

const concPolicy = `var tools @agent = { Bash: { labels: ["cmd"] }, Read: { labels: ["fs:r"] } }
policy @p = { defaults: { rules: ["no-secret-exfil"] }, operations: { exfil: ["op:cmd:curl"] } }
guard @g before op:cmd = when [
  @mx.args.command.includes("forbidden") => deny "forbidden"
  * => allow
]
`

func concEngine(t testing.TB, dir string) *Engine {
	fs, err := NewFileStore(dir)
	require.NoError(t, err)
	// 50 deciders queue for one session's lock: under the race detector
	// on a loaded machine a decision waits longer than the default
	// deadline, which this test is not about (it counts the records).
	e, err := New(context.Background(), Config{Policies: []Policy{{Name: "p.guard", Source: []byte(concPolicy)}}, Store: fs, Deadline: 2 * time.Minute})
	require.NoError(t, err)
	return e
}

// TestConcurrentDecidersOneSession runs 50 deciders against one session
// of one file store: 25 goroutines sharing an engine and 25 separate
// processes each with its own. Every call must be recorded exactly once
// and the session file must stay whole.
func TestConcurrentDecidersOneSession(t *testing.T) {
	if os.Getenv("GUARDRUN_AGENT_CHILD") != "" {
		t.Skip("child process")
	}
	dir := filepath.Join(t.TempDir(), "sessions")
	e := concEngine(t, dir)
	defer e.Close()
	const workers, per = 25, 4
	exe, err := os.Executable()
	require.NoError(t, err)
	var wg sync.WaitGroup
	errs := make(chan error, 2*workers)
	for w := 0; w < workers; w++ {
		wg.Add(2)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < per; i++ {
				d := e.Decide(context.Background(), Event{Kind: ToolBefore, Session: "shared", Tool: "Bash",
					CallID: fmt.Sprintf("g%d-%d", w, i), Input: map[string]any{"command": "echo " + strconv.Itoa(i)}})
				if d.Outcome != Allow {
					errs <- fmt.Errorf("goroutine %d: %s %s", w, d.Outcome, d.Reason)
				}
			}
		}(w)
		go func(w int) {
			defer wg.Done()
			cmd := exec.Command(exe, "-test.run", "^TestConcurrentChild$", "-test.count=1")
			cmd.Env = append(os.Environ(), "GUARDRUN_AGENT_CHILD="+dir, "GUARDRUN_AGENT_WORKER="+strconv.Itoa(w))
			if out, err := cmd.CombinedOutput(); err != nil {
				errs <- fmt.Errorf("process %d: %v\n%s", w, err, out)
			}
		}(w)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	require.NoError(t, e.cfg.Store.Update(context.Background(), "shared", func(s *Session) error {
		require.Equal(t, 2*workers*per, len(s.Calls), "calls recorded")
		require.Equal(t, 2*workers*per, s.Seq, "events counted")
		seen := map[string]bool{}
		for _, c := range s.Calls {
			require.False(t, seen[c.CallID], "call %s recorded twice", c.CallID)
			seen[c.CallID] = true
		}
		return nil
	}))
	files, err := filepath.Glob(filepath.Join(dir, "*"+journalExt))
	require.NoError(t, err)
	require.Len(t, files, 1)
	b, err := os.ReadFile(files[0])
	require.NoError(t, err)
	s, _, err := decodeJournalKey(b, keyOf(t, dir))
	require.NoError(t, err, "session file is whole")
	require.Len(t, s.Calls, 2*workers*per, "calls recorded on disk")
	st, err := os.Stat(files[0])
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), st.Mode().Perm())
	st, err = os.Stat(dir)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o700), st.Mode().Perm())
	t.Logf("%d deciders (%d goroutines, %d processes) x %d events: %d calls recorded", 2*workers, workers, workers, per, 2*workers*per)
}

// TestConcurrentChild is the body of one separate decider process.
func TestConcurrentChild(t *testing.T) {
	dir := os.Getenv("GUARDRUN_AGENT_CHILD")
	if dir == "" {
		t.Skip("run by TestConcurrentDecidersOneSession")
	}
	w := os.Getenv("GUARDRUN_AGENT_WORKER")
	e := concEngine(t, dir)
	defer e.Close()
	for i := 0; i < 4; i++ {
		d := e.Decide(context.Background(), Event{Kind: ToolBefore, Session: "shared", Tool: "Bash",
			CallID: fmt.Sprintf("p%s-%d", w, i), Input: map[string]any{"command": "echo " + strconv.Itoa(i)}})
		require.Equal(t, Allow, d.Outcome, d.Reason)
	}
}

// TestDecideFromManyGoroutines: one engine, many sessions and one shared
// session, decided from many goroutines (run with -race).
func TestDecideFromManyGoroutines(t *testing.T) {
	e, err := New(context.Background(), Config{Policies: []Policy{{Name: "p.guard", Source: []byte(concPolicy)}}, Store: NewMemoryStore()})
	require.NoError(t, err)
	defer e.Close()
	var wg sync.WaitGroup
	for w := 0; w < 16; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < 25; i++ {
				sess := "shared"
				if i%2 == 0 {
					sess = fmt.Sprintf("own-%d", w)
				}
				cmd := "echo ok"
				if i%5 == 0 {
					cmd = "forbidden thing"
				}
				d := e.Decide(context.Background(), Event{Kind: ToolBefore, Session: sess, Tool: "Bash", Input: map[string]any{"command": cmd}})
				want := Allow
				if i%5 == 0 {
					want = Deny
				}
				if d.Outcome != want {
					t.Errorf("worker %d call %d: %s (%s)", w, i, d.Outcome, d.Reason)
				}
			}
		}(w)
	}
	wg.Wait()
	require.NoError(t, e.cfg.Store.Update(context.Background(), "shared", func(s *Session) error {
		require.Len(t, s.Calls, 16*12)
		return nil
	}))
}

// TestAsyncObserverNeverDelays: an observer that sleeps does not slow a
// decision, and one that denies does not change it.
func TestAsyncObserverNeverDelays(t *testing.T) {
	slow := Hook{Name: "slow", Async: true, Func: func(ctx context.Context, _ HookInput) (HookResult, error) {
		select {
		case <-time.After(2 * time.Second):
		case <-ctx.Done():
		}
		return HookResult{Action: Deny, Reason: "late"}, nil
	}}
	e, err := New(context.Background(), Config{Policies: []Policy{{Name: "p.guard", Source: []byte(concPolicy)}}, Store: NewMemoryStore(), Hooks: []Hook{slow}})
	require.NoError(t, err)
	defer e.Close()
	start := time.Now()
	d := e.Decide(context.Background(), Event{Kind: ToolBefore, Session: "s", Tool: "Bash", Input: map[string]any{"command": "ls"}})
	require.Equal(t, Allow, d.Outcome)
	require.Less(t, time.Since(start), time.Second)
}

// TestApprovalDoesNotHoldTheSession: while a human is being asked, other
// events of the same session are decided.
func TestApprovalDoesNotHoldTheSession(t *testing.T) {
	policy := concPolicy + "guard @push before op:cmd:git = when [\n  * => ask \"Run git?\"\n]\n"
	release := make(chan struct{})
	asked := make(chan struct{})
	e, err := New(context.Background(), Config{Policies: []Policy{{Name: "p.guard", Source: []byte(policy)}}, Store: NewMemoryStore(),
		ApprovalTimeout: 10 * time.Second,
		Approver: ApproverFunc(func(ctx context.Context, r Request) (Answer, error) {
			close(asked)
			<-release
			return AllowAlways, nil
		})})
	require.NoError(t, err)
	defer e.Close()
	done := make(chan Decision)
	go func() {
		done <- e.Decide(context.Background(), Event{Kind: ToolBefore, Session: "s", Tool: "Bash", Input: map[string]any{"command": "git push"}})
	}()
	<-asked
	d := e.Decide(context.Background(), Event{Kind: ToolBefore, Session: "s", Tool: "Bash", Input: map[string]any{"command": "ls"}})
	require.Equal(t, Allow, d.Outcome)
	close(release)
	d = <-done
	require.Equal(t, Allow, d.Outcome)
	require.Equal(t, "always", d.Approved)
	d = e.Decide(context.Background(), Event{Kind: ToolBefore, Session: "s", Tool: "Bash", Input: map[string]any{"command": "git status"}})
	require.Equal(t, "cached", d.Approved)
	require.NoError(t, e.cfg.Store.Update(context.Background(), "s", func(s *Session) error {
		require.Equal(t, Allow, s.Calls[0].Decision, "the asked call is recorded with its answer")
		return nil
	}))
}

// keyOf is the checksum key of the store in dir.
func keyOf(t testing.TB, dir string) sumKey {
	fs, err := NewFileStore(dir)
	require.NoError(t, err)
	k, err := fs.loadKey()
	require.NoError(t, err)
	return k
}
