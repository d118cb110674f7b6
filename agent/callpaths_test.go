package agent

import (
	"math/rand"
	"strings"
	"testing"
)

// hasSegments agrees with the string tests it replaced, over generated
// paths built from the secret directories' segments and near misses.
func TestHasSegmentsProperty(t *testing.T) {
	parts := []string{".ssh", "ssh", ".ssh2", "x.ssh", ".config", "gcloud", ".config/gcloud", "a", "", ".aws", "aws"}
	old := func(p, d string) bool {
		return p == d || strings.HasSuffix(p, "/"+d) || strings.HasPrefix(p, d+"/") || strings.Contains(p, "/"+d+"/")
	}
	r := rand.New(rand.NewSource(1))
	for i := 0; i < 20000; i++ {
		var segs []string
		for n := r.Intn(5); n >= 0; n-- {
			segs = append(segs, parts[r.Intn(len(parts))])
		}
		p := strings.Join(segs, "/")
		if r.Intn(3) == 0 {
			p = "/" + p
		}
		for _, d := range []string{".ssh", ".config/gcloud", ".aws"} {
			if hasSegments(p, d) != old(p, d) {
				t.Fatalf("hasSegments(%q, %q) = %v", p, d, !old(p, d))
			}
		}
	}
}
