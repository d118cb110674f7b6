package credscan

import (
	"strings"
	"testing"
	"time"
)

// TestScanLinear runs Scan on a megabyte of each input built to make a
// rule rescan the text from every hit. Linear, each takes milliseconds;
// quadratic, minutes. The bound is loose for a loaded machine.
func TestScanLinear(t *testing.T) {
	units := []string{
		"a=", "key=a", ":", "sk-", "-eyJ", "eyJa.", "ya29.", "pypi-AgEI", "ghp_", "AKIA",
		"-----BEGIN PRIVATE KEY-----\n", "password = 1a2b3c4d\n", "machine m login l password 1a2b3c4d ",
		"//r/:_authToken=", "aws_secret_access_key=", "\"token\": \"", "=" + strings.Repeat("A", 600),
	}
	for _, u := range units {
		text := strings.Repeat(u, (1<<20)/len(u))
		start := time.Now()
		Scan(text)
		Has(text)
		if d := time.Since(start); d > 3*time.Second {
			t.Errorf("Scan and Has on a megabyte of %q took %v", u, d)
		}
	}
}
