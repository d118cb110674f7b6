package agent

import (
	"math/rand"
	"strings"
	"testing"
)

const propAlphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_=/+.:"

func randText(r *rand.Rand, n int, spaces bool) string {
	var b strings.Builder
	for b.Len() < n {
		if spaces && b.Len() > 0 && r.Intn(8) == 0 && !strings.HasSuffix(b.String(), " ") {
			b.WriteByte(' ')
			continue
		}
		b.WriteByte(propAlphabet[r.Intn(len(propAlphabet))])
	}
	return strings.TrimRight(b.String(), " ")
}

// TestFingerprintProperty: for random confidentiality-labelled outputs
// and random later inputs, an input holding a fragment copied from an
// output (MinFragment characters or longer) always carries the output's
// labels, and an unrelated random input never does.
func TestFingerprintProperty(t *testing.T) {
	r := rand.New(rand.NewSource(11))
	outputs, copies, unrelated, missed, falseHits := 0, 0, 0, 0, 0
	n := 300
	if testing.Short() {
		n = 50
	}
	for i := 0; i < n; i++ {
		s := &Session{}
		text := randText(r, MinFragment+r.Intn(2000), true)
		o := s.addOrigin(Origin{Seq: 1, Labels: []string{"secret"}}, DefaultLimits)
		s.addPrints(text, o, DefaultLimits)
		if len(s.Context) > 0 {
			t.Fatalf("output of %d bytes went context-wide", len(text))
		}
		outputs++
		for j := 0; j < 20; j++ {
			// A copied fragment, cut on non-space boundaries so the
			// surrounding text cannot merge whitespace into it.
			l := MinFragment + r.Intn(40)
			if l > len(text) {
				l = len(text)
			}
			start := r.Intn(len(text) - l + 1)
			frag := text[start : start+l]
			if strings.HasPrefix(frag, " ") || strings.HasSuffix(frag, " ") || len(normalise(frag)) < MinFragment {
				continue
			}
			in := randText(r, r.Intn(200), true) + "x" + frag + "x" + randText(r, r.Intn(200), true)
			copies++
			if labels, _ := s.contentLabels(in); len(labels) != 1 || labels[0] != "secret" {
				missed++
				t.Errorf("copied fragment %q not found", frag)
			}
			un := randText(r, 1+r.Intn(600), true)
			unrelated++
			if labels, _ := s.contentLabels(un); len(labels) > 0 {
				falseHits++
				t.Errorf("unrelated input %q matched", un)
			}
		}
	}
	t.Logf("fingerprint property: %d outputs, %d copied fragments (%d missed), %d unrelated inputs (%d false matches)",
		outputs, copies, missed, unrelated, falseHits)
}
