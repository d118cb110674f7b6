package code

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestBuildCommandSubstitutionQuoting(t *testing.T) {
	v := func(s string) Segment { return Segment{Value: s, IsValue: true} }
	l := func(s string) Segment { return Segment{Literal: s} }
	tests := []struct {
		name   string
		segs   []Segment
		script string
	}{
		{"inside $( ) in double quotes", []Segment{l(`echo "$(printf %s `), v("x"), l(`)"`)}, `echo "$(printf %s "${__gr_v1}")"`},
		{"inside $( ) unquoted", []Segment{l(`echo $(printf %s `), v("x"), l(`)`)}, `echo $(printf %s "${__gr_v1}")`},
		{"double inside $( ) inside double", []Segment{l(`echo "$(printf %s "`), v("x"), l(`")"`)}, `echo "$(printf %s "${__gr_v1}")"`},
		{"single inside $( )", []Segment{l(`echo "$(printf %s '`), v("x"), l(`')"`)}, `echo "$(printf %s ''"${__gr_v1}"'')"`},
		{"after $( ) closes", []Segment{l(`echo "$(date) `), v("x"), l(`"`)}, `echo "$(date) ${__gr_v1}"`},
		{"subshell parens inside $( )", []Segment{l(`echo "$( (true) ; printf %s `), v("x"), l(`)"`)}, `echo "$( (true) ; printf %s "${__gr_v1}")"`},
		{"after arithmetic", []Segment{l(`echo "$((1 + 1)) `), v("x"), l(`"`)}, `echo "$((1 + 1)) ${__gr_v1}"`},
		{"backticks in double quotes", []Segment{l("echo \"`printf %s "), v("x"), l("`\"")}, "echo \"`printf %s \"${__gr_v1}\"`\""},
		{"backticks unquoted", []Segment{l("echo `printf %s "), v("x"), l("`")}, "echo `printf %s \"${__gr_v1}\"`"},
		{"after backticks close", []Segment{l("echo \"`date` "), v("x"), l("\"")}, "echo \"`date` ${__gr_v1}\""},
		{"escaped $ is not a substitution", []Segment{l(`echo "\$(printf %s `), v("x"), l(`)"`)}, `echo "\$(printf %s ${__gr_v1})"`},
		{"dollar before value in double", []Segment{l(`echo "cost $`), v("x"), l(`"`)}, `echo "cost "'$'"${__gr_v1}"`},
		{"dollar before value unquoted", []Segment{l(`echo $`), v("x")}, `echo '$'"${__gr_v1}"`},
		{"backslash before value in backticks", []Segment{l("echo `printf %s \\"), v("x"), l("`")}, "echo `printf %s \\\\\\\\\"${__gr_v1}\"`"},
		{"quote in a comment", []Segment{l("echo a # say \"hi\n echo "), v("x")}, "echo a # say \"hi\n echo \"${__gr_v1}\""},
		{"quote in a comment after an operator", []Segment{l("echo a;# it's\necho "), v("x")}, "echo a;# it's\necho \"${__gr_v1}\""},
		{"comment after a line continuation", []Segment{l("echo a \\\n# it's\necho "), v("x")}, "echo a \\\n# it's\necho \"${__gr_v1}\""},
		{"comment inside $( )", []Segment{l("echo \"$(echo a # it's\n) "), v("x"), l("\"")}, "echo \"$(echo a # it's\n) ${__gr_v1}\""},
		{"hash inside a word", []Segment{l("echo a#'"), v("x"), l("'")}, "echo a#''\"${__gr_v1}\"''"},
		{"hash after $( ) closes", []Segment{l("echo $(true)#'"), v("x"), l("'")}, "echo $(true)#''\"${__gr_v1}\"''"},
		{"hash after a value", []Segment{v("x"), l("#'"), v("y"), l("'")}, "\"${__gr_v1}\"#''\"${__gr_v2}\"''"},
		{"hash in double quotes", []Segment{l("echo \"# '"), v("x"), l("\"")}, "echo \"# '${__gr_v1}\""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			script, _ := BuildCommand(tt.segs)
			require.Equal(t, tt.script, script)
		})
	}
}

// Values inside command substitution reach the inner command as one
// literal word under both dash and bash, and never run as code.
func TestBuildCommandSubstitutionInjection(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, "PWNED")
	e := NewEngine(Options{Dir: dir})
	hostile := []string{
		"$(touch PWNED)",
		"`touch PWNED`",
		`"; touch PWNED; "`,
		`'; touch PWNED; '`,
		`)"; touch PWNED; echo "(`,
		"`; touch PWNED; `",
		"a\nb; touch PWNED",
		`\`,
		"*",
		"${HOME}",
		"a  b\tc",
		"-n",
		"",
	}
	templates := []struct {
		name     string
		pre, suf string
		exact    bool // the output is the value itself
	}{
		{"$( ) in double quotes", `printf '<%s>' "$(printf %s `, `)"`, true},
		{"double in $( ) in double", `printf '<%s>' "$(printf %s "`, `")"`, true},
		{"single in $( ) in double", `printf '<%s>' "$(printf %s '`, `')"`, true},
		{"nested $( )", `printf '<%s>' "$(printf %s "$(printf %s `, `)")"`, true},
		{"backticks in double quotes", "printf '<%s>' \"`printf %s ", "`\"", true},
		{"double in backticks", "printf '<%s>' \"`printf %s \"", "\"`\"", true},
		{"$( ) unquoted", `printf '<%s>' $(printf %s `, `)`, false},
		{"backticks unquoted", "printf '<%s>' `printf %s ", "`", false},
		{"after $ in double quotes", `printf '<%s>' "$`, `"`, false},
	}
	for _, lang := range []string{"sh", "bash"} {
		for _, tpl := range templates {
			for _, v := range hostile {
				t.Run(lang+"/"+tpl.name+"/"+v, func(t *testing.T) {
					script, env := BuildCommand([]Segment{{Literal: tpl.pre}, {Value: v, IsValue: true}, {Literal: tpl.suf}})
					out, err := runShell(t, e, ShellRequest{Lang: lang, Script: script, Env: env})
					require.Nil(t, err, script)
					_, statErr := os.Stat(marker)
					require.True(t, os.IsNotExist(statErr), "value ran as code: %s", script)
					if tpl.exact {
						require.Equal(t, "<"+v+">", out, script)
					}
					if tpl.name == "after $ in double quotes" {
						require.Equal(t, "<$"+v+">", out, script)
					}
				})
			}
		}
	}
	script, env := BuildCommand([]Segment{{Literal: "printf %s \"`printf %s \\"}, {Value: "v", IsValue: true}, {Literal: "`\""}})
	out, err := runShell(t, e, ShellRequest{Script: script, Env: env})
	require.Nil(t, err)
	require.Equal(t, `\v`, out)
	require.False(t, strings.Contains(out, "__gr"))
}

// FuzzBuildCommand checks that no template text makes the quote scanner
// panic and that every value is referenced exactly once.
func FuzzBuildCommand(f *testing.F) {
	for _, s := range []string{"echo \"$(printf %s ", "`a \\", "'\"$((", "))))", "\"`'`\"", "$"} {
		f.Add(s, "tail")
	}
	f.Fuzz(func(t *testing.T, pre, suf string) {
		script, env := BuildCommand([]Segment{{Literal: pre}, {Value: "v", IsValue: true}, {Literal: suf}})
		require.Len(t, env, 1)
		require.Equal(t, 1, strings.Count(script, "${__gr_v1}"))
	})
}
