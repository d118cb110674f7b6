package conformance

import (
	"fmt"
	"io"
	"sort"
	"strings"
)

// Summary counts results overall and per tag.
type Summary struct {
	Passed, Failed int
	// Tags maps each tag to [passed, total].
	Tags map[string][2]int
}

// Percent is the pass percentage (0 when there are no cases).
func (s Summary) Percent() float64 {
	total := s.Passed + s.Failed
	if total == 0 {
		return 0
	}
	return 100 * float64(s.Passed) / float64(total)
}

// Summarize counts results; every tag of a case counts that case.
func Summarize(results []Result) Summary {
	s := Summary{Tags: map[string][2]int{}}
	for _, r := range results {
		if r.Pass {
			s.Passed++
		} else {
			s.Failed++
		}
		for _, t := range r.Case.Tags {
			c := s.Tags[t]
			c[1]++
			if r.Pass {
				c[0]++
			}
			s.Tags[t] = c
		}
	}
	return s
}

// Report writes the line format other tools parse: `PASS <path>` or
// `FAIL <path>: <reason>` per case (with details indented below failures
// when verbose), then `<tag>: <passed>/<total>` per tag in sorted order,
// then `<N> passed, <M> failed`.
func Report(w io.Writer, results []Result, verbose bool) Summary {
	for _, r := range results {
		if r.Pass {
			fmt.Fprintf(w, "PASS %s\n", r.Case.Path)
			continue
		}
		fmt.Fprintf(w, "FAIL %s: %s\n", r.Case.Path, oneLine(r.Reason))
		if verbose {
			writeDetails(w, r)
		}
	}
	s := Summarize(results)
	tags := make([]string, 0, len(s.Tags))
	for t := range s.Tags {
		tags = append(tags, t)
	}
	sort.Strings(tags)
	for _, t := range tags {
		fmt.Fprintf(w, "%s: %d/%d\n", t, s.Tags[t][0], s.Tags[t][1])
	}
	fmt.Fprintf(w, "%d passed, %d failed\n", s.Passed, s.Failed)
	return s
}

func writeDetails(w io.Writer, r Result) {
	if r.Case.ErrorText != "" && r.Case.ErrorText != "-" {
		fmt.Fprintf(w, "    error_text: %s\n", r.Case.ErrorText)
	}
	for _, s := range r.Scripts {
		if s.Pass {
			continue
		}
		if len(r.Scripts) > 1 {
			fmt.Fprintf(w, "    --- %s: %s\n", s.Script, oneLine(s.Reason))
		}
		for _, line := range strings.Split(strings.TrimRight(s.Diff, "\n"), "\n") {
			if line != "" {
				fmt.Fprintf(w, "    %s\n", line)
			}
		}
	}
}
