package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/guardrun/guardrun/agent"
	"github.com/guardrun/guardrun/hook"
	"github.com/guardrun/guardrun/internal/cliflags"
	"github.com/guardrun/guardrun/internal/xdgdir"
)

const logUsage = `usage:
  guardrun log [--session ID | --all] [--log FILE]     show a session's decisions (default: the latest session),
                                                       FILE.1 (the records rotated out of FILE) first
  guardrun log --replay LOG --policy NEW [--policy NEW2]  re-decide LOG's events with NEW; exit 1 when a decision changes
`

// runLog shows the decision log, or replays it against a changed policy
// (for CI: exit 1 when any decision changes).
func runLog(args []string, stdout, stderr io.Writer) int {
	fset := flag.NewFlagSet("guardrun log", flag.ContinueOnError)
	fset.SetOutput(stderr)
	fset.Usage = func() { fmt.Fprint(stderr, logUsage); fset.PrintDefaults() }
	session := fset.String("session", "", "show this session")
	all := fset.Bool("all", false, "show every session")
	logFile := fset.String("log", "", "the decision log (default: $XDG_STATE_HOME/guardrun/decisions.jsonl)")
	replay := fset.String("replay", "", "replay this decision log")
	var policies multiFlag
	fset.Var(&policies, "policy", "policy to replay with (repeat: user first, then workspace)")
	pos, ok := cliflags.ParseInterspersed(fset, args)
	if !ok || len(pos) > 0 || (*replay != "") != (len(policies) > 0) {
		if ok {
			fset.Usage()
		}
		return exitUsage
	}
	if *replay != "" {
		return replayLog(*replay, policies, stdout, stderr)
	}
	path := *logFile
	if path == "" {
		p, err := hook.LogPath()
		if err != nil {
			fmt.Fprintf(stderr, "guardrun log: %v\n", err)
			return exitFail
		}
		path = p
	}
	recs, err := readRotatedLog(path)
	if err != nil {
		fmt.Fprintf(stderr, "guardrun log: %v\n", err)
		return exitFail
	}
	if len(recs) == 0 {
		fmt.Fprintf(stdout, "%s: no decisions yet\n", path)
		return exitOK
	}
	if *session == "" && !*all {
		*session = recs[len(recs)-1].Session
	}
	shown := 0
	for _, r := range recs {
		if !*all && !sameSession(r.Session, *session) {
			continue
		}
		fmt.Fprintln(stdout, formatRecord(r))
		shown++
	}
	if shown == 0 && !*all {
		fmt.Fprintf(stderr, "guardrun log: no session %s in %s (guardrun log --all lists every session)\n", printable(*session), path)
		return exitFail
	}
	return exitOK
}

// sameSession reports whether a record's session is the one asked for:
// its id, or the start of it that the log's lines show (at least four
// characters).
func sameSession(id, asked string) bool {
	return id == asked || len(asked) >= 4 && strings.HasPrefix(id, asked)
}

// subjectFields are the input fields that say what a call does, in the
// order looked for: a command, else a path, else an address or a query.
var subjectFields = []string{"command", "cmd", "file_path", "absolute_path", "notebook_path", "target_file", "path", "paths",
	"dir_path", "url", "pattern", "query", "prompt", "message", "source"}

// maxSubject bounds the command or path a log line shows.
const maxSubject = 80

// subject is what a decided call was about: the input field and its
// command or path as the log has it (masked when it carried a
// confidentiality label), cut to maxSubject characters, or "".
func subject(input map[string]any) (field, text string) {
	for _, k := range subjectFields {
		v, ok := input[k]
		if !ok {
			continue
		}
		var s string
		switch v := v.(type) {
		case string:
			s = v
		case map[string]any:
			// A masked value: {"text": "[masked]", "bytes": n, "sha256": …}.
			if t, ok := v["text"].(string); ok && t == agent.Masked {
				s = agent.Masked
			}
		case []any:
			var parts []string
			for _, x := range v {
				if t, ok := x.(string); ok {
					parts = append(parts, t)
				}
			}
			s = strings.Join(parts, " ")
		}
		if s == "" {
			continue
		}
		if r := []rune(s); len(r) > maxSubject {
			s = string(r[:maxSubject-1]) + "…"
		}
		return k, s
	}
	return "", ""
}

// readRotatedLog reads the decision log at path after the older records
// its rotation moved to agent.RotatedLogPath(path), when there are any.
func readRotatedLog(path string) ([]agent.Record, error) {
	older, err := readLogFile(agent.RotatedLogPath(path))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	recs, err := readLogFile(path)
	if err != nil {
		return nil, err
	}
	return append(older, recs...), nil
}

func readLogFile(path string) ([]agent.Record, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	recs, err := hook.ReadLog(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return recs, nil
}

// formatRecord is one line of `guardrun log`. Every field comes from the
// log and most from the agent (a reason quotes its command), so each is
// shown through printable: no record can move the cursor, erase a line
// or start a line of its own.
func formatRecord(r agent.Record) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s  %s  %-16s %-12s %-5s", r.Time.Local().Format("2006-01-02 15:04:05"), printable(short(r.Session)),
		printable(string(r.Event)), printable(r.Tool), printable(r.Decision.String()))
	if r.Reason != "" {
		b.WriteString("  " + printable(r.Reason))
	}
	// The engine's reason of a denial names its guard or rule already.
	var by []string
	if r.Rule != "" && !strings.Contains(r.Reason, "rule "+r.Rule) {
		by = append(by, "rule "+printable(r.Rule))
	}
	if r.Guard != "" && !strings.Contains(r.Reason, "guard "+r.Guard) {
		by = append(by, "guard "+printable(r.Guard))
	}
	if a := r.Approval; a != nil {
		// What the human answered (lines written before the log had it
		// have none).
		h := "human: " + printable(string(a.Answer))
		switch a.Reused {
		case "":
		case agent.ReusedSession:
			h += ", from the session"
		case agent.ReusedEarlier:
			h += ", from an identical call"
		default:
			h += ", " + printable(a.Reused)
		}
		by = append(by, h)
	}
	if len(by) > 0 {
		b.WriteString(" (" + strings.Join(by, ", ") + ")")
	}
	if len(r.Labels) > 0 {
		labels := make([]string, len(r.Labels))
		for i, l := range r.Labels {
			labels[i] = printable(l)
		}
		b.WriteString("  [" + strings.Join(labels, " ") + "]")
	}
	if field, sub := subject(r.Input); sub != "" {
		b.WriteString("  " + field + "=" + printable(sub))
	}
	return b.String()
}

// printable is s as is when every character of it is printable
// (strconv.IsPrint: no C0 or C1 control such as ESC, CR or LF, no line
// or paragraph separator, no bidi override or other format character,
// valid UTF-8), else s Go-quoted (strconv.Quote), which escapes each of
// those.
func printable(s string) string {
	for _, r := range s {
		if r == utf8.RuneError || !strconv.IsPrint(r) {
			return strconv.Quote(s)
		}
	}
	return s
}

func short(s string) string {
	if len(s) > 12 {
		return s[:12]
	}
	return s
}

func replayLog(path string, files []string, stdout, stderr io.Writer) int {
	recs, err := readLogFile(path)
	if err != nil {
		fmt.Fprintf(stderr, "guardrun log: %v\n", err)
		return exitFail
	}
	hookDirs(path, files[0])
	// The first policy is the user's, the others workspace policies, as
	// the hook layers them (imports from each one's own folder).
	layers := make([]hook.Layer, len(files))
	for i, f := range files {
		layers[i] = hook.Layer{File: f, Workspace: i > 0}
	}
	pols, err := hook.ReadLayers(layers...)
	if err != nil {
		fmt.Fprintf(stderr, "guardrun log: %v\n", err)
		return exitFail
	}
	changes, err := hook.Replay(context.Background(), recs, pols)
	if err != nil {
		fmt.Fprintf(stderr, "guardrun log: policy: %v\n", err)
		return exitFail
	}
	changed, skipped := 0, 0
	for _, c := range changes {
		r := c.Record
		if c.Skipped != "" {
			skipped++
			fmt.Fprintf(stdout, "skipped  #%d %s %s %s: %s\n", c.Index+1, printable(short(r.Session)), printable(string(r.Event)), printable(r.Tool), printable(c.Skipped))
			continue
		}
		changed++
		recorded := r.Decision
		if r.Approval != nil {
			recorded = agent.Ask
		}
		why := c.New.Reason
		if why == "" {
			why = c.New.Question
		}
		fmt.Fprintf(stdout, "changed  #%d %s %s %s: %s → %s", c.Index+1, printable(short(r.Session)), printable(string(r.Event)), printable(r.Tool),
			printable(recorded.String()), c.New.Outcome)
		if why != "" {
			fmt.Fprintf(stdout, " (%s)", printable(why))
		}
		fmt.Fprintln(stdout)
	}
	decisions := 0
	for _, r := range recs {
		// A host: record is what the host or the hook did around a
		// decision (confinement, an unknown event), not one to replay.
		if !strings.HasPrefix(string(r.Event), "host:") {
			decisions++
		}
	}
	fmt.Fprintf(stdout, "%d decisions replayed: %d changed, %d skipped\n", decisions, changed, skipped)
	if changed > 0 {
		return exitFail
	}
	return exitOK
}

// multiFlag is a repeatable string flag.
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(s string) error { *m = append(*m, s); return nil }

// hookDirs makes the replay decide in the directories of the hook that
// wrote the log: the state directory the log is in
// (STATE/guardrun/decisions.jsonl) and the config directory the user's
// policy is in (CONFIG/guardrun/policy.guard), where they have that
// layout. What the hook protects (its own files) and the session
// bindings it made are found from them, so a replay run with other
// XDG_* directories than the hook's decides as the hook did.
func hookDirs(logPath, userPolicy string) {
	set := func(env, file string) {
		abs, err := filepath.Abs(file)
		if err != nil {
			return
		}
		dir := filepath.Dir(abs)
		if filepath.Base(dir) != xdgdir.Name {
			return
		}
		os.Setenv(env, filepath.Dir(dir))
	}
	if base := filepath.Base(logPath); base == "decisions.jsonl" || base == filepath.Base(agent.RotatedLogPath("decisions.jsonl")) {
		set(xdgdir.StateHome.Env(), logPath)
	}
	if filepath.Base(userPolicy) == "policy.guard" {
		set(xdgdir.ConfigHome.Env(), userPolicy)
	}
}
