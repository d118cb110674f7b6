package diffmlld

import (
	"context"
	"os"
	"regexp"
	"strings"
)

// Kind is how two outcomes disagree ("" when they agree).
type Kind string

// The kinds of disagreement.
const (
	Agree        Kind = ""
	OutputDiffer Kind = "output differs"
	OnlyOursErr  Kind = "guardrun errors, mlld does not"
	OnlyRefErr   Kind = "mlld errors, guardrun does not"
	ErrClassDiff Kind = "both error, different class"
	TimeoutDiff  Kind = "one side times out"
)

var newlineRun = regexp.MustCompile(`\n{3,}`)

// Normalize is mlld's own output comparison rule: CRLF to LF, runs of
// three or more newlines collapsed to two, surrounding white space trimmed.
func Normalize(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = newlineRun.ReplaceAllString(s, "\n\n")
	return strings.TrimSpace(s)
}

// Compare classifies the pair (ours, ref).
func Compare(ours, ref Outcome) Kind {
	switch {
	case ours.Class == ref.Class && ours.Class == OK:
		if Normalize(ours.Stdout) == Normalize(ref.Stdout) {
			return Agree
		}
		return OutputDiffer
	case ours.Class == ref.Class:
		return Agree
	case ours.Class == Timeout || ref.Class == Timeout:
		return TimeoutDiff
	case ref.Class == OK:
		return OnlyOursErr
	case ours.Class == OK:
		return OnlyRefErr
	}
	return ErrClassDiff
}

// Loose reports whether k is a disagreement only in the error's class
// (both sides reject the script).
func Loose(k Kind) bool { return k == Agree || k == ErrClassDiff }

// Pair runs p through both peers, each in its own fresh directory (a
// script may write files), and returns both outcomes.
func Pair(ctx context.Context, ours, ref Peer, p Program) (Outcome, Outcome) {
	run := func(peer Peer) Outcome {
		dir, file, err := writeProgram(p)
		if dir != "" {
			defer os.RemoveAll(dir)
		}
		if err != nil {
			return Outcome{Class: Runtime, ErrName: "harness: " + err.Error()}
		}
		return peer.Run(ctx, dir, file)
	}
	ch := make(chan Outcome, 1)
	go func() { ch <- run(ours) }()
	r := run(ref)
	return <-ch, r
}
