package editdist

import "testing"

func TestDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{{"", "", 0}, {"ask", "ask", 0}, {"aks", "ask", 1}, {"dney", "deny", 1}, {"block", "deny", 5}, {"", "abc", 3}, {"secert", "secret", 1}, {"gti", "git", 1}, {"kitten", "sitting", 3}} {
		if got := Distance(c.a, c.b); got != c.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}
