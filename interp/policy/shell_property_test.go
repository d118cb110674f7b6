package policy

import (
	"flag"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/guardrun/guardrun/interp/code"
)

var shellCases = flag.Int("shellcases", 120, "random command templates TestValuesNeverChangeWhatRuns runs through /bin/sh")

// recorders are the programs the random templates run: scripts that log
// their name, so the test sees every program the shell starts.
var recorders = []string{"ra", "rb", "rc", "rd"}

// TestValuesNeverChangeWhatRuns interpolates random hostile values into
// random command templates and runs them with /bin/sh (through
// BuildCommand, as cmd blocks run): the programs that run are those the
// same template runs with a harmless value, and they are exactly the
// programs the policy's view of the command names. -shellcases sets the
// number of templates.
func TestValuesNeverChangeWhatRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("runs /bin/sh")
	}
	if _, err := os.Stat("/bin/sh"); err != nil {
		t.Skip("no /bin/sh")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	if err := os.Mkdir(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, r := range recorders {
		script := "#!/bin/sh\necho " + r + " >> \"$LOG\"\n"
		if err := os.WriteFile(filepath.Join(bin, r), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	rng := rand.New(rand.NewSource(1))
	checked := 0
	for n := range *shellCases {
		tmpl := randomTemplate(rng)
		values := make([]string, 0, len(tmpl))
		benign := make([]CommandPart, len(tmpl))
		hostile := make([]CommandPart, len(tmpl))
		for i, p := range tmpl {
			benign[i], hostile[i] = p, p
			if p.Value {
				v := randomValue(rng)
				values = append(values, v)
				benign[i].Text = "v"
				hostile[i].Text = v
			}
		}
		want := policyPrograms(t, benign)
		if got := policyPrograms(t, hostile); !slices.Equal(got, want) {
			t.Fatalf("case %d: the policy's view changed with the values\ntemplate: %q\nvalues: %q\nbenign: %v\nhostile: %v", n, joinParts(benign), values, want, got)
		}
		ranBenign := runRecorded(t, dir, bin, benign)
		ranHostile := runRecorded(t, dir, bin, hostile)
		if !slices.Equal(ranHostile, ranBenign) {
			t.Fatalf("case %d: values changed what runs\ntemplate: %q\nvalues: %q\nbenign ran: %v\nhostile ran: %v", n, joinParts(benign), values, ranBenign, ranHostile)
		}
		if !slices.Equal(dedup(ranHostile), want) {
			t.Fatalf("case %d: the policy's view differs from the shell's\ntemplate: %q\nvalues: %q\npolicy: %v\nshell ran: %v", n, joinParts(benign), values, want, ranHostile)
		}
		checked++
	}
	t.Logf("%d templates: values never changed what ran, and the policy saw exactly the programs the shell ran", checked)
}

// policyPrograms returns the sorted names of the programs the policy
// sees in a command line.
func policyPrograms(t *testing.T, parts []CommandPart) []string {
	t.Helper()
	cmds, ok := splitParts(parts)
	if !ok {
		t.Fatalf("NUL in %q", joinParts(parts))
	}
	var out []string
	for _, c := range cmds {
		if c.unchecked != "" {
			t.Fatalf("unchecked %q: %s", joinParts(parts), c.unchecked)
		}
		out = append(out, c.tokens[0])
	}
	return dedup(out)
}

// runRecorded runs the command line as a cmd block runs and returns the
// sorted names of the programs it started.
func runRecorded(t *testing.T, dir, bin string, parts []CommandPart) []string {
	t.Helper()
	segs := make([]code.Segment, len(parts))
	for i, p := range parts {
		if p.Value {
			segs[i] = code.Segment{Value: p.Text, IsValue: true}
		} else {
			segs[i] = code.Segment{Literal: p.Text}
		}
	}
	script, env := code.BuildCommand(segs)
	log := filepath.Join(dir, "log")
	_ = os.Remove(log)
	cmd := exec.Command("/bin/sh", "-c", script)
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + bin, "LOG=" + log}
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	out, err := cmd.CombinedOutput()
	if err != nil || len(out) > 0 {
		t.Fatalf("%q: %v %s", script, err, out)
	}
	data, _ := os.ReadFile(log)
	ran := strings.Fields(string(data))
	slices.Sort(ran)
	return ran
}

func dedup(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return slices.Compact(s)
}

// randomTemplate builds a well-formed command line of recorder commands
// whose arguments hold values in every quoting context.
func randomTemplate(rng *rand.Rand) []CommandPart {
	var parts []CommandPart
	lit := func(s string) { parts = append(parts, CommandPart{Text: s}) }
	val := func() { parts = append(parts, CommandPart{Value: true}) }
	prog := func() string { return recorders[rng.Intn(len(recorders))] }
	seps := []string{" | ", "; ", " && ", "\n", " # it's a \"comment\n", " ;# \"x'\n"}
	for c := range 1 + rng.Intn(3) {
		if c > 0 {
			lit(seps[rng.Intn(len(seps))])
		}
		lit(prog())
		for range rng.Intn(4) {
			lit(" ")
			switch rng.Intn(12) {
			case 0:
				lit("lit")
			case 1:
				val()
			case 2:
				lit(`"a `)
				val()
				lit(` b"`)
			case 3:
				lit("'a ")
				val()
				lit(" b'")
			case 4:
				lit("--opt=")
				val()
			case 5:
				lit("$(" + prog() + " ")
				val()
				lit(")")
			case 6:
				lit(`"$(` + prog() + ` "`)
				val()
				lit(`")"`)
			case 7:
				lit("`" + prog() + " ")
				val()
				lit("`")
			case 8:
				lit(`\`)
				val()
			case 9:
				lit("$")
				val()
			case 10:
				val()
				lit("x")
				val()
			case 11:
				lit(`"`)
				val()
				lit(`"'`)
				val()
				lit(`'`)
			}
		}
	}
	return parts
}

// randomValue is a value made of shell metacharacters, recorder names and
// injection attempts.
func randomValue(rng *rand.Rand) string {
	pieces := []string{"'", `"`, "#", ";", "$(ra)", "`rb`", "\n", "*", "?", "[a]", " ", `\`, "$", "${x}",
		"&&", "|", "rc", "rd x", "-rf", "{a,b}", "}", ")", "(", "~", "!", "\t", "$(", "`", "'\"", "; rb;", "\nrc\n",
		"$((1))", "<(ra)", ">x", "2>&1", "a", "--", "=", "x=y "}
	var b strings.Builder
	for range 1 + rng.Intn(6) {
		b.WriteString(pieces[rng.Intn(len(pieces))])
	}
	return b.String()
}
