package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/guardrun/guardrun/sandbox"
)

// BenchmarkExecStartup measures `guardrun exec -- true` against a bare
// `bash -c true`, alternating the two in each iteration so that the
// machine's load weighs on both alike, from this repository's root as
// the workspace with the user's own home. It reports each one's time,
// the ratio, and the start of `guardrun version` (the binary's own
// start-up, which any guardrun command pays). GUARDRUN_BIN names the guardrun binary to measure
// (make bench-exec builds guardrun and guardrun-hook and runs this
// for each; guardrun-hook has no version command, so no version time);
// without it, this test binary plays guardrun, which starts slower than
// the real one.
func BenchmarkExecStartup(b *testing.B) {
	if _, err := sandbox.ABI(); err != nil {
		b.Skipf("the kernel lacks Landlock, guardrun exec refuses to run: %v", err)
	}
	bin, env := os.Getenv("GUARDRUN_BIN"), os.Environ()
	args, bare := []string{"exec", "--", "true"}, []string{"version"}
	if bin == "" {
		bin = os.Args[0]
		a, _ := json.Marshal(args)
		env = append(env, runArgsEnv+"="+string(a))
		args, bare = []string{"-test.run=^$"}, []string{"-test.run=^$"}
	}
	run := func(name string, arg ...string) time.Duration {
		cmd := exec.Command(name, arg...)
		cmd.Dir, cmd.Env = "../..", env
		start := time.Now()
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("%s %v: %v\n%s", name, arg, err, out)
		}
		return time.Since(start)
	}
	var bash, guarded, version time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		bash += run("bash", "-c", "true")
		guarded += run(bin, args...)
		if filepath.Base(bin) != "guardrun-hook" {
			version += run(bin, bare...)
		}
	}
	n := float64(b.N)
	b.ReportMetric(float64(bash.Microseconds())/n, "bash-µs/op")
	if version > 0 {
		b.ReportMetric(float64(version.Microseconds())/n, "version-µs/op")
	}
	b.ReportMetric(float64(guarded.Microseconds())/n, "exec-µs/op")
	b.ReportMetric(float64(guarded)/float64(bash), "x-bash")
}
