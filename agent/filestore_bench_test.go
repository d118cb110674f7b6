package agent

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"
)

// benchSession fills a session the way a long agent session does: calls
// (with their outcomes), one origin per call, a few read hashes, and
// prints fingerprints of labelled output.
func benchSession(s *Session, calls, prints int, lim Limits) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; i < calls; i++ {
		s.Seq++
		s.addCall(Call{Seq: s.Seq, Name: "Bash", Decision: Allow, Time: t0.Add(time.Duration(i) * time.Second),
			CallID: fmt.Sprintf("toolu_%024d", i), Command: fmt.Sprintf("go test ./agent/... -run Test%d", i)}, lim)
		s.Calls[len(s.Calls)-1].Outcome = "ok"
		s.addOrigin(Origin{Seq: s.Seq, Event: ToolAfter, Tool: "Read", CallID: fmt.Sprintf("toolu_%024d", i), Labels: []string{"untrusted", "src:web"}}, lim)
	}
	for i := 0; i < prints; i++ {
		// In runs of one origin, as addPrints adds an output's prints.
		s.Prints = append(s.Prints, Print{Hash: uint64(i) * 0x9e3779b97f4a7c15, Origin: i / 100 % max(1, len(s.Origins))})
	}
	s.Reads = map[string]string{"/src/main.go": "3a7bd3e2360a3d29eea436fcfb7e44c735d117c42d1c1835420b6b9942dd4f1b"}
}

// BenchmarkFileStoreUpdate: one decision's worth of session change (a
// call recorded, the previous call's outcome set) against sessions of
// growing size. The call cap is the session size, so the session stays
// between nine tenths and all of it however long the benchmark runs.
// The kept variants are a long-lived process's store (KeepDecoded), which
// replays the journal only when another process wrote it.
func BenchmarkFileStoreUpdate(b *testing.B) {
	for _, c := range []struct {
		calls, prints int
		kept          bool
	}{{10, 0, false}, {200, 0, false}, {1000, 0, false}, {200, 20000, false}, {200, 0, true}, {1000, 0, true}} {
		name := fmt.Sprintf("calls=%d/prints=%d", c.calls, c.prints)
		if c.kept {
			name += "/kept"
		}
		b.Run(name, func(b *testing.B) {
			fs, err := NewFileStore(filepath.Join(b.TempDir(), "s"))
			if err != nil {
				b.Fatal(err)
			}
			fs.KeepDecoded = c.kept
			lim := Limits{MaxCalls: c.calls, MaxOrigins: c.calls, MaxPrints: c.prints + 1}.orDefault()
			ctx := context.Background()
			if err := fs.Update(ctx, "bench", func(s *Session) error {
				benchSession(s, c.calls, c.prints, lim)
				return nil
			}); err != nil {
				b.Fatal(err)
			}
			t0 := time.Now()
			b.ReportAllocs()
			b.ResetTimer()
			cpu0 := cpuTime()
			for i := 0; i < b.N; i++ {
				err := fs.Update(ctx, "bench", func(s *Session) error {
					s.Seq++
					if n := len(s.Calls); n > 0 {
						s.Calls[n-1].Outcome = "ok"
					}
					s.addCall(Call{Seq: s.Seq, Name: "Bash", Decision: Allow, Time: t0.Add(time.Duration(i) * time.Millisecond),
						CallID: fmt.Sprintf("toolu_%024d", i), Command: "go test ./..."}, lim)
					return nil
				})
				if err != nil {
					b.Fatal(err)
				}
			}
			// On a shared machine wall time mostly measures the other
			// tenants (it does include waiting for fsync, CPU time not).
			b.ReportMetric(float64((cpuTime()-cpu0).Nanoseconds())/float64(b.N), "cpu-ns/op")
		})
	}
}
