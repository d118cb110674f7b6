package policy

import (
	"slices"
	"testing"
)

// A CLI's subcommand is found past its global options, those that take
// a value included: a rule on op:cmd:kubectl:delete sees `kubectl -n
// prod delete`; on main only git's options were skipped, and the label
// was op:cmd:kubectl:-n.
func TestSubcommandPastGlobalOptions(t *testing.T) {
	cases := []struct{ line, want string }{
		{"kubectl -n prod delete pod web-1", "op:cmd:kubectl:delete"},
		{"kubectl --context prod --namespace=web delete deploy x", "op:cmd:kubectl:delete"},
		{"kubectl -nprod delete pod x", "op:cmd:kubectl:delete"},
		{"docker -H tcp://10.0.0.2:2375 run --rm alpine", "op:cmd:docker:run"},
		{"docker --context remote rm -f web", "op:cmd:docker:rm"},
		{"helm --kube-context prod -n web uninstall api", "op:cmd:helm:uninstall"},
		{"terraform -chdir=infra destroy -auto-approve", "op:cmd:terraform:destroy"},
		{"aws --profile prod --region eu-west-1 s3 rm s3://b --recursive", "op:cmd:aws:s3"},
		{"gcloud --project prod compute instances delete vm", "op:cmd:gcloud:compute"},
		{"npm --prefix web publish", "op:cmd:npm:publish"},
		{"cargo +nightly publish", "op:cmd:cargo:publish"},
		{"go -C tools run ./gen", "op:cmd:go:run"},
		{"git -C repo -c core.pager=cat push --force", "op:cmd:git:push"},
		{"GIT_DIR=x git --no-pager push", "op:cmd:git:push"},
	}
	for _, c := range cases {
		union, _, ok := CommandLineOpLabels(c.line)
		if !ok || !slices.Contains(union, c.want) {
			t.Errorf("%s: got %v (ok %v), want %s", c.line, union, ok, c.want)
		}
	}
	// A program not in the table keeps its first word, option or not.
	union, _, _ := CommandLineOpLabels("rm -rf build")
	if !slices.Contains(union, "op:cmd:rm:-rf") {
		t.Errorf("rm -rf build: got %v", union)
	}
}
