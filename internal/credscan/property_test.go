package credscan

import (
	"maps"
	"math/rand"
	"slices"
	"strings"
	"testing"
)

const (
	upperDigits = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	letters     = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	digits      = "0123456789"
	alnumBytes  = letters + digits
	b64urlBytes = alnumBytes + "_-"
	b64stdBytes = alnumBytes + "+/"
	hexBytes    = "0123456789abcdef"
)

func randFrom(r *rand.Rand, set string, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = set[r.Intn(len(set))]
	}
	return string(b)
}

// generated is a credential in the context its rule needs: the text is
// before + secret + after, and after is a line end where the value of
// a config file's line runs to the next blank.
type generated struct {
	before, secret, after string
}

// generators make a random credential for each rule.
var generators = map[string]func(r *rand.Rand) generated{
	RuleAWSAccessKeyID: func(r *rand.Rand) generated {
		return generated{secret: []string{"AKIA", "ASIA"}[r.Intn(2)] + randFrom(r, upperDigits, 16)}
	},
	RuleAWSSecretAccessKey: func(r *rand.Rand) generated {
		key := []string{"aws_secret_access_key = ", "AWS_SECRET_ACCESS_KEY=", `"SecretAccessKey": "`}[r.Intn(3)]
		g := generated{before: key, secret: randFrom(r, b64stdBytes, 40)}
		if strings.HasSuffix(key, `"`) {
			g.after = `"`
		}
		return g
	},
	RuleGitHubToken: func(r *rand.Rand) generated {
		return generated{secret: "gh" + randFrom(r, "pousr", 1) + "_" + randFrom(r, alnumBytes, 36)}
	},
	RuleGitHubPAT: func(r *rand.Rand) generated {
		return generated{secret: "github_pat_" + randFrom(r, alnumBytes, 22) + "_" + randFrom(r, alnumBytes, 59)}
	},
	RuleGitLabPAT: func(r *rand.Rand) generated {
		return generated{secret: "glpat-" + randFrom(r, b64urlBytes, 20+r.Intn(20))}
	},
	RuleSlackToken: func(r *rand.Rand) generated {
		return generated{secret: "xox" + randFrom(r, "baprs", 1) + "-" + randFrom(r, digits, 12) + "-" + randFrom(r, digits, 13) + "-" + randFrom(r, alnumBytes, 24)}
	},
	RuleStripeKey: func(r *rand.Rand) generated {
		return generated{secret: []string{"sk_live_", "rk_live_", "sk_test_"}[r.Intn(3)] + randFrom(r, alnumBytes, 24+r.Intn(75))}
	},
	RuleOpenAIKey: func(r *rand.Rand) generated {
		if r.Intn(2) == 0 {
			return generated{secret: "sk-" + randFrom(r, alnumBytes, 20) + "T3BlbkFJ" + randFrom(r, alnumBytes, 20)}
		}
		return generated{secret: "sk-proj-" + randFrom(r, b64urlBytes, 74)}
	},
	RuleAnthropicKey: func(r *rand.Rand) generated {
		return generated{secret: "sk-ant-api03-" + randFrom(r, b64urlBytes, 93) + "AA"}
	},
	RuleGoogleAPIKey: func(r *rand.Rand) generated {
		return generated{secret: "AIza" + randFrom(r, b64urlBytes, 35)}
	},
	RuleGoogleOAuthToken: func(r *rand.Rand) generated {
		return generated{secret: "ya29." + randFrom(r, b64urlBytes, 60+r.Intn(100))}
	},
	RuleNPMToken: func(r *rand.Rand) generated {
		return generated{secret: "npm_" + randFrom(r, alnumBytes, 36)}
	},
	RuleNPMRCAuthToken: func(r *rand.Rand) generated {
		return generated{before: "//registry.npmjs.org/:_authToken=", secret: randFrom(r, hexBytes, 36), after: "\n"}
	},
	RulePyPIToken: func(r *rand.Rand) generated {
		return generated{secret: "pypi-AgEIcHlwaS5vcmc" + randFrom(r, b64urlBytes, 70+r.Intn(100))}
	},
	RulePrivateKey: func(r *rand.Rand) generated {
		kind := []string{"RSA ", "EC ", "OPENSSH ", ""}[r.Intn(4)]
		body := ""
		for range 1 + r.Intn(5) {
			body += randFrom(r, b64stdBytes, 64) + "\n"
		}
		return generated{secret: "-----BEGIN " + kind + "PRIVATE KEY-----\n" + body + "-----END " + kind + "PRIVATE KEY-----"}
	},
	RuleJWT: func(r *rand.Rand) generated {
		return generated{secret: "eyJ" + randFrom(r, b64urlBytes, 20+r.Intn(30)) + ".eyJ" + randFrom(r, b64urlBytes, 40+r.Intn(100)) + "." + randFrom(r, b64urlBytes, 43)}
	},
	RuleNetrcPassword: func(r *rand.Rand) generated {
		return generated{before: "machine host" + randFrom(r, digits, 2) + ".internal login deploy password ", secret: randPassword(r), after: "\n"}
	},
	RulePypircPassword: func(r *rand.Rand) generated {
		return generated{before: "[pypi]\nusername = alice\npassword = ", secret: randPassword(r), after: "\n"}
	},
	RuleGenericAssignment: func(r *rand.Rand) generated {
		key := []string{"API_KEY=", "export TOKEN=", "password: ", "db_passwd = ", "?access_token=", "curl -d key=", "X-Auth-Token: "}[r.Intn(7)]
		g := generated{before: key}
		if r.Intn(3) == 0 {
			q := []string{`"`, `'`}[r.Intn(2)]
			g.before, g.after = g.before+q, q
		}
		// The value heuristics have tests of their own; this property
		// is about finding the value wherever it is.
		for g.secret == "" || !plausibleSecret(g.secret) {
			g.secret = randFrom(r, alnumBytes+"-_", 16+r.Intn(48))
		}
		return g
	},
}

// randPassword returns a random config-file password that the
// placeholder marks, which random letters spell now and then ("fake"),
// leave alone.
func randPassword(r *rand.Rand) string {
	for {
		if v := randFrom(r, alnumBytes, 11) + randFrom(r, digits, 1); plausiblePassword(v) {
			return v
		}
	}
}

// filler is text around credentials: words, code and log fragments
// that hold none.
var filler = []string{
	"the", "error:", "ok", "func main() {", "}", "x := 1", "count=3", "status: done", "\n", "\t",
	"2026-11-27T04:19:49Z", "INFO", "GET /api/v1/items 200", "// a comment", "if err != nil {",
	"550e8400-e29b-41d4-a716-446655440000", "3f786850e387550fdab836ed7e6dc881de23001b", "{\"a\": 1}",
	"- item", "# heading", "user=alice", "path=/tmp/x", "é", "—",
}

func randomFiller(r *rand.Rand) string {
	var b strings.Builder
	for range r.Intn(12) {
		b.WriteString(filler[r.Intn(len(filler))])
		b.WriteByte(" \n"[r.Intn(2)])
	}
	return b.String()
}

// drawGenerated draws from gen until the secret is not a placeholder.
func drawGenerated(r *rand.Rand, gen func(*rand.Rand) generated) generated {
	for {
		if g := gen(r); !placeholder(g.secret) {
			return g
		}
	}
}

// TestScanFindsGenerated embeds random credentials of every rule in
// random text and requires each to be found, alone, with its span.
//
// The rules are taken in sorted order, each with its own seeded source,
// so every run draws the same credentials (a map's order changes between
// runs). A drawn value that happens to spell a placeholder mark ("fake",
// "xxxx") is one the scanner skips on purpose, so it is drawn again.
func TestScanFindsGenerated(t *testing.T) {
	rules := slices.Sorted(maps.Keys(generators))
	for i, rule := range rules {
		gen := generators[rule]
		r := rand.New(rand.NewSource(int64(i + 1)))
		for range 300 {
			g := drawGenerated(r, gen)
			head := randomFiller(r) + "\n" + g.before
			text := head + g.secret + g.after + []string{"\n", " ", ", ", "; "}[r.Intn(4)] + randomFiller(r)
			want := Match{Rule: rule, Start: len(head), End: len(head) + len(g.secret)}
			got := Scan(text)
			if len(got) != 1 || got[0] != want {
				t.Fatalf("%s: Scan(%q)\n got %v\nwant %v", rule, text, describe(text, got), describe(text, []Match{want}))
			}
			if !Has(text) {
				t.Fatalf("%s: Has(%q) = false", rule, text)
			}
		}
	}
	for _, m := range []string{RuleAWSAccessKeyID, RuleAWSSecretAccessKey, RuleGitHubToken, RuleGitHubPAT, RuleGitLabPAT, RuleSlackToken, RuleStripeKey, RuleOpenAIKey, RuleAnthropicKey, RuleGoogleAPIKey, RuleGoogleOAuthToken, RuleNPMToken, RuleNPMRCAuthToken, RulePyPIToken, RulePrivateKey, RuleJWT, RuleNetrcPassword, RulePypircPassword, RuleGenericAssignment} {
		if generators[m] == nil {
			t.Errorf("no generator for rule %s", m)
		}
	}
}
