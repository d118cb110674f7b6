package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/guardrun/guardrun/format"
	"github.com/guardrun/guardrun/internal/cliflags"
	"github.com/guardrun/guardrun/policytest"
)

const fmtUsage = `usage: guardrun fmt [-w | -d | --check] FILE...
`

// runFmt is `guardrun fmt`: print, rewrite (-w), diff (-d) or check
// (--check) the canonical layout of each file.
func runFmt(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("guardrun fmt", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, fmtUsage); fs.PrintDefaults() }
	write := fs.Bool("w", false, "write the result back to each file instead of printing it")
	diff := fs.Bool("d", false, "print a line diff of what would change")
	check := fs.Bool("check", false, "list files that are not formatted and exit 1 if any")
	files, ok := cliflags.ParseInterspersed(fs, args)
	if !ok {
		return exitUsage
	}
	if len(files) == 0 {
		fmt.Fprintln(stderr, "guardrun fmt: expected at least one FILE")
		fs.Usage()
		return exitUsage
	}
	status := exitOK
	for _, file := range files {
		src, err := os.ReadFile(file)
		if err != nil {
			fmt.Fprintf(stderr, "guardrun fmt: %v\n", err)
			status = exitFail
			continue
		}
		if strings.HasSuffix(file, policytest.TestSuffix) {
			// A decision test file is not a script: its syntax is
			// guardrun test's, and fmt has no layout for it. Parse it as
			// what it is, so an error names the test syntax, and keep it.
			if _, err := policytest.Parse(file, src); err != nil {
				fmt.Fprintf(stderr, "%v\n", err)
				status = exitFail
				continue
			}
			fmt.Fprintf(stderr, "guardrun fmt: %s is a decision test file (guardrun test reads it); fmt keeps it as written\n", file)
			if !*check && !*write && !*diff {
				stdout.Write(src)
			}
			continue
		}
		res, err := format.Source(file, src, format.ModeFor(file))
		if err != nil {
			fmt.Fprint(stderr, renderSourceError(err, file, src))
			status = exitFail
			continue
		}
		changed := !bytes.Equal(src, res.Text)
		switch {
		case *check:
			if changed {
				fmt.Fprintln(stdout, file)
				status = exitFail
			}
		case *write:
			if changed {
				if err := os.WriteFile(file, res.Text, 0o644); err != nil {
					fmt.Fprintf(stderr, "guardrun fmt: %v\n", err)
					status = exitFail
				}
			}
		case *diff:
			if changed {
				fmt.Fprint(stdout, lineDiff(file, string(src), string(res.Text)))
			}
		default:
			stdout.Write(res.Text)
		}
	}
	return status
}

// lineDiff is a minimal unified-style diff (longest common subsequence
// of lines), enough to review what fmt would change.
func lineDiff(file, a, b string) string {
	x, y := strings.SplitAfter(a, "\n"), strings.SplitAfter(b, "\n")
	lcs := make([][]int, len(x)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(y)+1)
	}
	for i := len(x) - 1; i >= 0; i-- {
		for j := len(y) - 1; j >= 0; j-- {
			if x[i] == y[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var out strings.Builder
	fmt.Fprintf(&out, "--- %s\n+++ %s (formatted)\n", file, file)
	line := func(prefix, s string) {
		out.WriteString(prefix + strings.TrimSuffix(s, "\n") + "\n")
	}
	i, j := 0, 0
	for i < len(x) || j < len(y) {
		switch {
		case i < len(x) && j < len(y) && x[i] == y[j]:
			i, j = i+1, j+1
		case i < len(x) && (j == len(y) || lcs[i+1][j] >= lcs[i][j+1]):
			line("-", x[i])
			i++
		default:
			line("+", y[j])
			j++
		}
	}
	return out.String()
}
