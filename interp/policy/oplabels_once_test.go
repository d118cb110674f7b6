package policy

import (
	"math/rand/v2"
	"os"
	"reflect"
	"strconv"
	"testing"
)

// TestOpLabelsFromFactsParse: where CommandLineFactsIn gives the line's
// operation labels from its own parse, they are exactly what
// CommandLineOpLabels gives for the line as written, over generated
// lines and the bash differential's shapes.
func TestOpLabelsFromFactsParse(t *testing.T) {
	dir := t.TempDir()
	env := &ShellEnv{Dir: dir, Getenv: func(string) (string, bool) { return "", false }}
	words := []string{"git", "push", "--force", "origin", "main", "-C", "sub", "kubectl", "-n", "prod", "delete", "pod",
		"sudo", "env", "A=1", "timeout", "5", "bash", "-c", "'git push'", "curl", "-d", "@.env", "https://x.example",
		"rm", "-rf", "build", "ls", "|", "&&", ";", "||", "$(ls)", "\"$X\"", "xargs", "cat", "<", "f.txt", ">", "out",
		"docker", "run", "npm", "test", "(", ")", "{", "}", "cd", "..", "./run.sh", "python3", "-c", "'print(1)'", "eval", "'ls'"}
	seed := uint64(5)
	if s := os.Getenv("GUARDRUN_OPLABELS_SEED"); s != "" {
		seed, _ = strconv.ParseUint(s, 10, 64)
	}
	r := rand.New(rand.NewPCG(seed, 9))
	given := 0
	for i := 0; i < 4000; i++ {
		n := 1 + r.IntN(8)
		line := ""
		for j := 0; j < n; j++ {
			if j > 0 {
				line += " "
			}
			line += words[r.IntN(len(words))]
		}
		f := CommandLineFactsIn(line, env)
		if f.OpLabels == nil {
			continue
		}
		given++
		u, per, ok := CommandLineOpLabels(line)
		if !reflect.DeepEqual(u, f.OpLabels.Union) || !reflect.DeepEqual(per, f.OpLabels.PerCommand) || ok != f.OpLabels.Checked {
			t.Fatalf("seed %d (GUARDRUN_OPLABELS_SEED): %q: from the facts' parse %v %v %v, parsed alone %v %v %v", seed, line, f.OpLabels.Union, f.OpLabels.PerCommand, f.OpLabels.Checked, u, per, ok)
		}
	}
	if given < 500 {
		t.Fatalf("only %d of 4000 lines had their labels from the facts' parse", given)
	}
}
