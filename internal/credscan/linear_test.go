package credscan

import (
	"strings"
	"testing"
	"time"
)

// TestScanLinear runs Scan and Has on 128 KiB and on 512 KiB of each input
// built to make a rule rescan the text from every hit, and compares the
// two, interleaved: linear, four times the text takes about four times as long;
// quadratic, sixteen. The ratio, the fastest of a few runs of each, does
// not depend on how loaded the machine is, where a bound in seconds
// does (it failed under load).
func TestScanLinear(t *testing.T) {
	units := []string{
		"a=", "key=a", ":", "sk-", "-eyJ", "eyJa.", "ya29.", "pypi-AgEI", "ghp_", "AKIA",
		"-----BEGIN PRIVATE KEY-----\n", "password = 1a2b3c4d\n", "machine m login l password 1a2b3c4d ",
		"//r/:_authToken=", "aws_secret_access_key=", "\"token\": \"", "=" + strings.Repeat("A", 600),
	}
	run := func(text string) time.Duration {
		return timed(func() {
			Scan(text)
			Has(text)
		})
	}
	for _, u := range units {
		// CPU time of the scanning thread (not wall time, which grows
		// with the machine's load), interleaved; the fastest of each.
		smallText, bigText := strings.Repeat(u, (1<<17)/len(u)), strings.Repeat(u, (1<<19)/len(u))
		small, big := time.Duration(1<<62), time.Duration(1<<62)
		for i := 0; i < 3; i++ {
			small, big = min(small, run(smallText)), min(big, run(bigText))
		}
		// 12×, not 4×: short runs carry fixed costs and noise; a
		// quadratic rule is 16× and grows from there.
		if big > 12*small+20*time.Millisecond {
			t.Errorf("Scan and Has on %q: 512 KiB took %v, 128 KiB %v: not linear", u, big, small)
		}
	}
}
