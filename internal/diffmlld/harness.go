package diffmlld

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
)

// Config says how a suite runs.
type Config struct {
	Ours, Ref Peer
	// Jobs is how many programs run at once.
	Jobs int
	// ShrinkPer is how many disagreements of each (kind, feature) bucket
	// are shrunk; the rest are counted under their bucket as they are.
	ShrinkPer int
	// ShrinkBudget caps the pairs of runs spent shrinking one script.
	ShrinkBudget int
	// Progress, when set, receives one line per finished program.
	Progress io.Writer
	// Cache, when set, is shared by every run of the suite.
	Cache *Cache
}

// Result is one program's verdict.
type Result struct {
	Program   Program
	Ours, Ref Outcome
	Kind      Kind
	// Minimal is the shrunk program (Shrunk) or the program itself; Ours
	// and Ref are the outcomes of Minimal.
	Minimal Program
	Shrunk  bool
	// Category is "kind / feature" of the minimal program; an unshrunk
	// disagreement takes the category its bucket's shrunk representative
	// found (a bucket is the kind and the feature of the whole script).
	Category string
	bucket   string
}

// Suite runs every program through both peers and shrinks disagreements.
func Suite(ctx context.Context, cfg Config, progs []Program) []Result {
	cache := cfg.Cache
	if cache == nil {
		cache = new(Cache)
	}
	results := make([]Result, len(progs))
	var mu sync.Mutex
	shrunk := map[string]int{}
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < max(cfg.Jobs, 1); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				p := progs[i]
				o, r := cache.Pair(ctx, cfg.Ours, cfg.Ref, p)
				res := Result{Program: p, Ours: o, Ref: r, Kind: ComparePort(p, o, r), Minimal: p}
				if res.Kind == Deliberate {
					res.Category = string(Deliberate) + " / " + p.Port.Row
				} else if res.Kind != Agree {
					bucket := string(res.Kind) + " / " + Feature(p.Source)
					mu.Lock()
					doShrink := shrunk[bucket] < cfg.ShrinkPer
					if doShrink {
						shrunk[bucket]++
					}
					mu.Unlock()
					if doShrink {
						res.Minimal = shrink(ctx, cache, cfg.Ours, cfg.Ref, p, res.Kind, cfg.ShrinkBudget)
						res.Shrunk = true
						// The outcomes reported are the minimal script's.
						if mo, mr := cache.Pair(ctx, cfg.Ours, cfg.Ref, res.Minimal); Compare(mo, mr) == res.Kind {
							res.Ours, res.Ref = mo, mr
						} else {
							res.Minimal, res.Shrunk = p, false
						}
					}
					res.Category = string(res.Kind) + " / " + Feature(res.Minimal.Source)
					res.bucket = bucket
				}
				results[i] = res
				if cfg.Progress != nil {
					mu.Lock()
					fmt.Fprintf(cfg.Progress, "%s\t%s\n", p.Name, orAgree(res.Category))
					mu.Unlock()
				}
			}
		}()
	}
	for i := range progs {
		if ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	rep := map[string]string{}
	for _, r := range results {
		if r.Shrunk {
			rep[r.bucket] = r.Category
		}
	}
	for i, r := range results {
		if c, ok := rep[r.bucket]; ok && r.Kind != Agree && !r.Shrunk {
			results[i].Category = c
		}
	}
	return results
}

func orAgree(c string) string {
	if c == "" {
		return "agree"
	}
	return c
}

// Summary is the figures of one suite.
type Summary struct {
	Name string
	// Slug prefixes the folders SaveMinimal writes ("docs", "gen").
	Slug          string
	Total, Agreed int
	Loose         int // agreed, or both errored in different classes
	// Deliberate counts the programs that differ exactly as a SPEC PORT
	// row documents; they are reported, and kept out of the rates.
	Deliberate      int
	Skipped         map[string]int
	Categories      []Category
	OursErr, RefErr int
}

// Category is one kind of disagreement with its count and the smallest
// minimal example found for it.
type Category struct {
	Name    string
	Count   int
	Example Result
}

// Summarize counts results into a Summary.
func Summarize(name string, results []Result, skipped map[string]int) Summary {
	s := Summary{Name: name, Skipped: skipped}
	byCat := map[string]*Category{}
	for _, r := range results {
		if r.Program.Name == "" {
			continue // not run (cancelled)
		}
		if r.Kind == Deliberate {
			s.Deliberate++
		} else {
			s.Total++
		}
		if r.Kind == Agree {
			s.Agreed++
		}
		if Loose(r.Kind) {
			s.Loose++
		}
		if r.Kind == Agree {
			continue
		}
		c := byCat[r.Category]
		if c == nil {
			c = &Category{Name: r.Category, Example: r}
			byCat[r.Category] = c
		}
		c.Count++
		if better(r, c.Example) {
			c.Example = r
		}
	}
	for _, c := range byCat {
		s.Categories = append(s.Categories, *c)
	}
	sort.Slice(s.Categories, func(i, j int) bool {
		a, b := s.Categories[i], s.Categories[j]
		if a.Count != b.Count {
			return a.Count > b.Count
		}
		return a.Name < b.Name
	})
	return s
}

// better prefers shrunk examples, then shorter ones.
func better(r, than Result) bool {
	if r.Shrunk != than.Shrunk {
		return r.Shrunk
	}
	return len(r.Minimal.Source) < len(than.Minimal.Source)
}

// Rate formats n of total as a percentage.
func Rate(n, total int) string {
	if total == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%d/%d (%.1f%%)", n, total, 100*float64(n)/float64(total))
}

// WriteTable writes a summary's figures and category table as markdown.
func WriteTable(w io.Writer, s Summary) {
	fmt.Fprintf(w, "### %s\n\n", s.Name)
	fmt.Fprintf(w, "- agreement (same output, or same error class): %s\n", Rate(s.Agreed, s.Total))
	fmt.Fprintf(w, "- agreement ignoring parse/runtime error class: %s\n", Rate(s.Loose, s.Total))
	if s.Deliberate > 0 {
		fmt.Fprintf(w, "- deliberate differences (programs of a SPEC PORT row on which each side did what the row documents; not in the rates above): %d\n", s.Deliberate)
	}
	if len(s.Skipped) > 0 {
		var keys []string
		total := 0
		for k, n := range s.Skipped {
			keys = append(keys, k)
			total += n
		}
		sort.Strings(keys)
		fmt.Fprintf(w, "- skipped: %d\n", total)
		for _, k := range keys {
			fmt.Fprintf(w, "  - %s: %d\n", k, s.Skipped[k])
		}
	}
	fmt.Fprintf(w, "\n| category | count | example |\n|---|---:|---|\n")
	for _, c := range s.Categories {
		fmt.Fprintf(w, "| %s | %d | `%s` |\n", c.Name, c.Count, c.Example.Program.Name)
	}
	fmt.Fprintln(w)
}

// WriteExamples writes each category's minimal example with both outcomes.
func WriteExamples(w io.Writer, s Summary) {
	for _, c := range s.Categories {
		r := c.Example
		fmt.Fprintf(w, "#### %s (%d)\n\n`%s`:\n\n```mlld\n%s```\n\n", c.Name, c.Count, r.Program.Name, r.Minimal.Source)
		fmt.Fprintf(w, "- guardrun: %s\n- mlld: %s\n\n", describe(r.Ours), describe(r.Ref))
	}
}

// WriteDisagreements writes every disagreeing program of a suite (not only
// each category's example) with its source and both outcomes, in run
// order: the list to work through when fixing by example.
func WriteDisagreements(w io.Writer, results []Result) {
	for _, r := range results {
		if r.Program.Name == "" || r.Kind == Agree {
			continue
		}
		fmt.Fprintf(w, "#### %s: %s\n\n```mlld\n%s```\n\n", r.Program.Name, r.Category, r.Program.Source)
		fmt.Fprintf(w, "- guardrun: %s\n- mlld: %s\n\n", describe(r.Ours), describe(r.Ref))
	}
}

// describe is a one-line account of an outcome.
func describe(o Outcome) string {
	if o.Class == OK {
		return "ok, stdout " + quote(Normalize(o.Stdout), 160)
	}
	msg := errMessage(o.Stderr)
	return fmt.Sprintf("%s error %s %s", o.Class, o.ErrName, quote(msg, 160))
}

// errMessage is the first line of stderr that says something: mlld frames
// its errors in a box with a location line above the message.
func errMessage(stderr string) string {
	for _, line := range strings.Split(Normalize(stderr), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "━") || strings.Contains(line, "....") {
			continue
		}
		return line
	}
	return ""
}

func quote(s string, n int) string {
	if len(s) > n {
		s = s[:n] + "…"
	}
	return "`" + strings.ReplaceAll(strings.ReplaceAll(s, "\n", "⏎"), "`", "'") + "`"
}

var unsafeName = regexp.MustCompile(`[^a-z0-9]+`)

// SaveMinimal writes every category's minimal example of s under dir, one
// directory each: main.mld, its files, and ref.txt / ours.txt with the two
// outcomes (mlld's is what a fix should produce).
func SaveMinimal(dir string, s Summary) error {
	for i, c := range s.Categories {
		name := fmt.Sprintf("%s-%02d-%s", s.Slug, i+1,
			strings.Trim(unsafeName.ReplaceAllString(strings.ToLower(c.Name), "-"), "-"))
		p := c.Example.Minimal
		p.Name = name
		d := filepath.Join(dir, name)
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
		for f, body := range p.Files {
			path := filepath.Join(d, filepath.FromSlash(f))
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				return err
			}
			if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
				return err
			}
		}
		if err := os.WriteFile(filepath.Join(d, "main.mld"), []byte(p.Source), 0o644); err != nil {
			return err
		}
		meta := fmt.Sprintf("category: %s\nsource: %s\ncount: %d\n", c.Name, c.Example.Program.Name, c.Count)
		if err := os.WriteFile(filepath.Join(d, "ref.txt"), []byte(meta+outcomeText(c.Example.Ref)), 0o644); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(d, "ours.txt"), []byte(meta+outcomeText(c.Example.Ours)), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// tempDir matches the fresh directories programs run in, which error
// messages quote.
var tempDir = regexp.MustCompile(`/[^\s'"]*/diffmlld-[0-9]+`)

func outcomeText(o Outcome) string {
	return tempDir.ReplaceAllString(fmt.Sprintf("class: %s %s\nexit: %d\n--- stdout\n%s\n--- stderr\n%s\n", o.Class, o.ErrName, o.Exit, Normalize(o.Stdout), Normalize(o.Stderr)), "$$DIR")
}
