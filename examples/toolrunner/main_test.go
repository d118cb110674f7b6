package main

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/guardrun/guardrun"
)

// The example runs as documented: the allowed calls ran, each refusal
// came back typed (class, guard or rule, labels) and was logged, and the
// refused calls did nothing.
func TestToolRunner(t *testing.T) {
	var out, logs bytes.Buffer
	if err := run(&out, &logs); err != nil {
		t.Fatal(err)
	}
	want := `1. ada read_file notes.txt: ok: buy milk [fs:r]
2. ada send_email team@example.com: ok: sent [net:w]
3. bob read_file /etc/shadow: deny (system files are off limits)
4. eve send_email friend@example.com: deny (the user's email quota is used up)
5. bob delete_file draft.txt: deny (Rule 'no-untrusted-destructive': label 'untrusted' cannot flow to 'destructive')
6. bob delete_file draft.txt: ok: deleted [fs:delete]
7. ada read_file app/.env: ok: API_KEY=sk-live-123 [secret]
8. ada send_email attacker@example.com: deny (Rule 'no-secret-exfil': label 'secret' cannot flow to 'exfil')
outbox: ["to team@example.com: standup at 10"]
draft.txt deleted: true
`
	if out.String() != want {
		t.Errorf("output:\n%s\nwant:\n%s", out.String(), want)
	}
	for _, line := range []string{
		`denied bob read_file: class=guard guard="@system_files" rule="" labels=[] retryable=true at policy.mld:22:45`,
		`denied eve send_email: class=guard guard="@email_quota" rule="" labels=[] retryable=true at policy.mld:23:47`,
		`denied bob delete_file: class=policy guard="" rule="defaults.rules.no-untrusted-destructive" labels=[untrusted] retryable=false`,
		`denied ada send_email: class=policy guard="" rule="defaults.rules.no-secret-exfil" labels=[secret] retryable=false`,
	} {
		if !strings.Contains(logs.String(), line) {
			t.Errorf("log lacks %q:\n%s", line, logs.String())
		}
	}
}

// Many requests at once through one compiled program: each sees its own
// inputs. Run with -race.
func TestToolRunnerConcurrent(t *testing.T) {
	r, err := NewRunner(map[string]string{"a.txt": "A", "b.txt": "B"}, map[string]int{})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error)
	for i := 0; i < 32; i++ {
		go func() {
			path, want := "a.txt", "A"
			if i%2 == 1 {
				path, want = "b.txt", "B"
			}
			o := r.Run(context.Background(), Request{User: "u", Tool: "read_file", Args: map[string]any{"path": path}})
			if o.Err != nil || o.Output != want {
				done <- errors.New(path + ": got " + o.Output)
				return
			}
			done <- nil
		}()
	}
	for i := 0; i < 32; i++ {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
}

// A policy with a mistake does not compile: the runner learns at start.
func TestToolRunnerStrict(t *testing.T) {
	saved := policySource
	defer func() { policySource = saved }()
	policySource = bytes.Replace(saved, []byte("@quota(@user)"), []byte("@quota(@usr)"), 1)
	_, err := NewRunner(nil, nil)
	var e *guardrun.Error
	if !errors.As(err, &e) || e.Name != guardrun.CheckErrorName || e.Pos.Line != 17 {
		t.Fatalf("want a CheckError at line 17, got %v", err)
	}
}
