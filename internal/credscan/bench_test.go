package credscan

import (
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"
)

// repoGoSource returns n bytes of the repository's own Go source (but
// this package's), files in path order, repeated if need be.
func repoGoSource(b *testing.B, n int) string {
	b.Helper()
	texts := repoTexts(b)
	var paths []string
	for p := range texts {
		if strings.HasSuffix(p, ".go") {
			paths = append(paths, p)
		}
	}
	sort.Strings(paths)
	var sb strings.Builder
	for sb.Len() < n {
		for _, p := range paths {
			sb.WriteString(texts[p])
			if sb.Len() >= n {
				break
			}
		}
	}
	return sb.String()[:n]
}

// logText returns n bytes of a service's log: request lines, ids,
// digests, durations and stack-trace-like lines, with no credential.
func logText(n int) string {
	var sb strings.Builder
	for i := 0; sb.Len() < n; i++ {
		fmt.Fprintf(&sb, "2026-11-27T04:%02d:%02d.%03dZ INFO request_id=550e8400-e29b-41d4-a716-%012x method=GET path=/api/v1/items/%d status=200 duration=%d.%dms user=alice@corp.internal\n",
			i/60%60, i%60, i%1000, i, i, i%97, i%10)
		if i%5 == 0 {
			fmt.Fprintf(&sb, "2026-11-27T04:00:00Z DEBUG cache hit key=items:%d etag=\"sha256:%064x\" size=%d\n", i, i*7919, i*13)
		}
		if i%11 == 0 {
			fmt.Fprintf(&sb, "\tat com.corp.service.ItemHandler.handle(ItemHandler.java:%d)\n\tat com.corp.http.Router.dispatch(Router.java:%d)\n", i%300, i%200)
		}
		if i%17 == 0 {
			fmt.Fprintf(&sb, "2026-11-27T04:00:00Z WARN auth: token expired for session %08x, refreshing (attempt %d)\n", i*2654435761, i%3)
		}
	}
	return sb.String()[:n]
}

func BenchmarkScan(b *testing.B) {
	inputs := []struct {
		name string
		text string
	}{
		{"go-source-64KiB", repoGoSource(b, 64<<10)},
		{"go-source-1MiB", repoGoSource(b, 1<<20)},
		{"log-1MiB", logText(1 << 20)},
	}
	for _, in := range inputs {
		b.Run(in.name, func(b *testing.B) {
			b.SetBytes(int64(len(in.text)))
			b.ReportAllocs()
			cpu := cpuTime()
			for b.Loop() {
				Scan(in.text)
			}
			reportCPU(b, cpu)
		})
	}
}

func BenchmarkHas(b *testing.B) {
	inputs := []struct {
		name string
		text string
	}{
		{"go-source-64KiB", repoGoSource(b, 64<<10)},
		{"go-source-1MiB", repoGoSource(b, 1<<20)},
		{"log-1MiB", logText(1 << 20)},
		{"log-1MiB-secret-at-end", logText(1<<20) + "\nGITHUB_TOKEN=" + githubToken + "\n"},
	}
	for _, in := range inputs {
		b.Run(in.name, func(b *testing.B) {
			b.SetBytes(int64(len(in.text)))
			b.ReportAllocs()
			cpu := cpuTime()
			for b.Loop() {
				Has(in.text)
			}
			reportCPU(b, cpu)
		})
	}
}

// reportCPU reports the process's CPU time per iteration since start
// (cpu-ns/op), the figure to read when other processes share the
// machine and stretch ns/op, the wall-clock time.
func reportCPU(b *testing.B, start time.Duration) {
	if start == 0 || b.N == 0 {
		return
	}
	b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
}

// TestBenchInputsClean checks that the log the benchmarks read holds no
// credential, so that Has on it measures a whole pass.
func TestBenchInputsClean(t *testing.T) {
	text := logText(1 << 20)
	if ms := Scan(text); len(ms) != 0 {
		t.Errorf("log text: %v", describe(text, ms[:1]))
	}
}
