package credscan

import (
	"strings"
	"testing"
)

// FuzzScan checks what holds of every text: Scan does not panic, its
// spans lie in the text, in order and apart, each with a rule, and Has
// agrees with it.
func FuzzScan(f *testing.F) {
	for _, p := range positives {
		f.Add(strings.Replace(p.text, "§§", p.secret, 1))
	}
	for _, n := range negatives {
		f.Add(n)
	}
	f.Add("-----BEGIN PRIVATE KEY-----")
	f.Add("eyJ.eyJ.")
	f.Add("password=")
	f.Add("machine m login l password ")
	f.Fuzz(func(t *testing.T, text string) {
		ms := Scan(text)
		end := 0
		for _, m := range ms {
			if m.Rule == "" || m.Start < end || m.End <= m.Start || m.End > len(text) {
				t.Fatalf("Scan(%q): bad or overlapping match %+v in %+v", text, m, ms)
			}
			end = m.End
		}
		if Has(text) != (len(ms) > 0) {
			t.Fatalf("Has(%q) = %v, Scan found %d", text, Has(text), len(ms))
		}
	})
}
