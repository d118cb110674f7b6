package hook

import (
	"os/exec"
	"testing"

	"github.com/guardrun/guardrun/interp/policy"
)

func TestOpaqueLine(t *testing.T) {
	for line, want := range map[string]bool{
		`python3 scripts/x.py`:            true,
		`python3 -c "print(1)"`:           true,
		`make upload FILE=.env`:           true,
		`node x.js < .env`:                true,
		`./build/app --flag`:              true,
		`cd sub && ../tool`:               true,
		`$CMD arg`:                        true,
		`ls -la`:                          false,
		`git status && git diff`:          false,
		`cat README.md | grep x`:          false,
		`guardrun exec -- bash -c 'ls'`:   false,
		`rm -rf build && mkdir -p build`:  false,
		`echo hi > out.txt && wc -l *.go`: false,
	} {
		f := policy.CommandLineFacts(line)
		if got := opaqueLine(f, line) && !underExec(f); got != want {
			t.Errorf("opaqueLine(%q) = %v, want %v", line, got, want)
		}
	}
}

// A quoted line given to bash -c runs as the line itself.
func TestShellQuote(t *testing.T) {
	for _, s := range []string{`plain`, `it's "quoted" $HOME \n`, `a'b'c`, ``, `python3 -c 'print("x")'`} {
		out, err := exec.Command("bash", "-c", "printf %s "+shellQuote(s)).Output()
		if err != nil || string(out) != s {
			t.Errorf("shellQuote(%q) round trip: %q %v", s, out, err)
		}
	}
}
