package serve

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/guardrun/guardrun/hook"
)

// benchEvents are replay.py's quiet bench: a ~2 KB third-party output,
// then a send_email, per round, in one session.
func benchEvents(sid string, i int) [2][]byte {
	page := "- body: " + strings.Repeat("lorem ipsum dolor sit amet ", 80) + "\n  sender: someone" + fmt.Sprint(i)
	after, _ := json.Marshal(map[string]any{"event": "tool.after", "data": map[string]any{"session": sid, "tool": "read_channel_messages",
		"input": map[string]any{"channel": "general"}, "output": page}})
	before, _ := json.Marshal(map[string]any{"event": "tool.before", "data": map[string]any{"session": sid, "tool": "send_email",
		"input": map[string]any{"recipients": []string{"john.doe@clientcorp.com"}, "subject": "notes", "body": fmt.Sprint("notes ", i)}}})
	return [2][]byte{after, before}
}

// BenchmarkDecide: one event (half tool.after, half tool.before, a new
// session every 20 events, as long as an AgentDojo episode) decided
// by a server (warm: the pinned policy's engine loaded once) and by
// hook.Run as a hook process runs it (cold: discovery, load, decide; in
// one process, so without the process's start). warm-long keeps one
// session throughout, as examples/serve/python/bench.py does: the
// session's record grows with every event.
func BenchmarkDecide(b *testing.B) {
	for _, mode := range []string{"warm", "warm-long", "cold"} {
		b.Run(mode, func(b *testing.B) {
			home(b, agentdojoPolicy(b))
			s, err := New(Config{})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			prompt := []byte(`{"event":"prompt.submit","data":{"session":"bench","text":"Please email the notes to john.doe@clientcorp.com"}}`)
			decide := func(line []byte) []byte {
				if mode != "cold" {
					return s.Handle(line)
				}
				return hook.Run(hook.Options{Adapter: hook.Adapters["generic"], Stdin: strings.NewReader(string(line))}).Stdout
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				sid := fmt.Sprint("bench-", i/20)
				if mode == "warm-long" {
					sid = "bench-long"
				}
				if i%20 == 0 && (mode != "warm-long" || i == 0) {
					b.StopTimer()
					decide([]byte(strings.Replace(string(prompt), `"bench"`, `"`+sid+`"`, 1)))
					b.StartTimer()
				}
				ev := benchEvents(sid, i/2)
				if out := decide(ev[i%2]); !strings.Contains(string(out), `"continue":true`) {
					b.Fatalf("%s", out)
				}
			}
		})
	}
}
