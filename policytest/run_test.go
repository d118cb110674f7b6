package policytest_test

import (
	"context"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/guardrun/guardrun/policytest"
	"github.com/stretchr/testify/require"
)

func TestSamplePolicyPasses(t *testing.T) {
	cov := policytest.NewCoverage()
	rs, err := policytest.Run(context.Background(), []string{"../examples/policy-tests/agent.test.mld", "../examples/policy-tests/cases"}, policytest.Options{Coverage: cov})
	require.NoError(t, err)
	require.Len(t, rs, 5)
	for _, r := range rs {
		require.True(t, r.Pass, "%s: %s", r.Name, strings.Join(r.Failures, "\n"))
	}
	reached := 0
	for _, p := range cov.Points() {
		if p.Reached {
			reached++
		}
	}
	require.Greater(t, reached, 3)
}

func TestFailingTestsReportExpectedAndGot(t *testing.T) {
	rs, err := policytest.Run(context.Background(), []string{"../examples/policy-tests/failing"}, policytest.Options{})
	require.NoError(t, err)
	require.Len(t, rs, 2)
	require.False(t, rs[0].Pass)
	require.Contains(t, rs[0].Failures[0], "broken.test.mld:9: expect allow\n    got: deny by policy @agent")
	require.False(t, rs[1].Pass)
	require.Contains(t, rs[1].Failures[0], `broken.test.mld:14: expect output "notified: hello"`)
	require.Contains(t, rs[1].Failures[0], `got: "notified: hi"`)
}

func TestRunPattern(t *testing.T) {
	rs, err := policytest.Run(context.Background(), []string{"../examples/policy-tests"}, policytest.Options{Run: regexp.MustCompile("redacted")})
	require.NoError(t, err)
	require.Len(t, rs, 1)
	require.Equal(t, "a secret is redacted when shown", rs[0].Name)
}

func TestParseErrors(t *testing.T) {
	for src, want := range map[string]string{
		"expect allow\n":                     "t.test.mld:1: expect before any test",
		"test \"x\" [\n  show 1\n":           "no closing ]",
		"test \"x\" [\n]\nexpect maybe\n":    "unknown expectation",
		"use \"a.mld\"\nuse \"b.mld\"\n":     "uses one policy file",
		"show 1\n":                           "expected use",
		"test \"x\" [\n]\nexpect output 1\n": "wants a quoted string",
	} {
		_, err := policytest.Parse("t.test.mld", []byte(src))
		require.ErrorContains(t, err, want, src)
	}
}

func TestScriptCasesErrorContains(t *testing.T) {
	rs, err := policytest.Run(context.Background(), []string{"testdata/error-contains"}, policytest.Options{})
	require.NoError(t, err)
	require.Len(t, rs, 3)
	byName := map[string]policytest.Result{}
	for _, r := range rs {
		byName[filepath.Base(r.Name)] = r
	}
	require.True(t, byName["good"].Pass, "%v", byName["good"].Failures)
	require.False(t, byName["wrong"].Pass)
	require.Contains(t, byName["wrong"].Failures[0], `does not contain "Variable not found: other"; got: example.mld:1:10: Variable not found: nope`)
	require.False(t, byName["unpinned"].Pass)
	require.Contains(t, byName["unpinned"].Failures[0], "must name the position (example.mld:LINE:)")
}

func TestOwnFixturesPass(t *testing.T) {
	// Our own golden fixtures use error-contains.md; the timeout case needs
	// the short command timeout fixtures_test.go runs them with.
	rs, err := policytest.Run(context.Background(), []string{"../fixtures/policy-rules", "../fixtures/errors"}, policytest.Options{CommandTimeout: 2 * time.Second})
	require.NoError(t, err)
	require.Greater(t, len(rs), 100)
	for _, r := range rs {
		require.True(t, r.Pass, "%s: %s", r.Name, strings.Join(r.Failures, "\n"))
	}
}
