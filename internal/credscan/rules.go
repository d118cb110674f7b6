package credscan

import "strings"

// A rule finds one shape of credential.
type rule interface {
	// appendMatches appends the rule's matches in text to dst and
	// returns it, stopping once dst holds limit matches (limit < 0: no
	// limit). The matches of one rule may overlap; Scan sorts it out.
	appendMatches(dst []Match, text string, limit int) []Match
}

// Rule names, as reported in Match.Rule.
const (
	RuleAWSAccessKeyID     = "aws-access-key-id"
	RuleAWSSecretAccessKey = "aws-secret-access-key"
	RuleGitHubToken        = "github-token"
	RuleGitHubPAT          = "github-fine-grained-pat"
	RuleGitLabPAT          = "gitlab-pat"
	RuleSlackToken         = "slack-token"
	RuleStripeKey          = "stripe-key"
	RuleOpenAIKey          = "openai-api-key"
	RuleAnthropicKey       = "anthropic-api-key"
	RuleGoogleAPIKey       = "google-api-key"
	RuleGoogleOAuthToken   = "google-oauth-token"
	RuleNPMToken           = "npm-token"
	RuleNPMRCAuthToken     = "npmrc-auth-token"
	RulePyPIToken          = "pypi-token"
	RulePrivateKey         = "private-key"
	RuleJWT                = "jwt"
	RuleNetrcPassword      = "netrc-password"
	RulePypircPassword     = "pypirc-password"
	RuleGenericAssignment  = "generic-secret-assignment"
)

var (
	upperAlnum = newCharset("A-Z0-9")
	alnum      = newCharset("A-Za-z0-9")
	alnumUnder = newCharset("A-Za-z0-9_")
	b64url     = newCharset("A-Za-z0-9_-")
	b64std     = newCharset("A-Za-z0-9+/=")
)

// namedRules are every rule but the generic assignment, which only
// counts where none of these does.
var namedRules = []rule{
	&tokenRule{name: RuleAWSAccessKeyID, anchors: []anchor{{"IA", 2}, {"CCA", 1}}, prefixes: []string{"AKIA", "ASIA", "ABIA", "ACCA"}, body: upperAlnum, min: 16, max: 16},
	&awsSecretRule{},
	&tokenRule{name: RuleGitHubToken, anchors: []anchor{{"gh", 0}}, prefixes: []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_"}, body: alnum, min: 36, max: 255},
	&tokenRule{name: RuleGitHubPAT, anchors: []anchor{{"_pat_", 6}}, prefixes: []string{"github_pat_"}, body: alnumUnder, min: 40, max: 255},
	&tokenRule{name: RuleGitLabPAT, anchors: []anchor{{"glpat-", 0}}, prefixes: []string{"glpat-"}, body: b64url, min: 20, max: 255},
	&tokenRule{name: RuleSlackToken, anchors: []anchor{{"xox", 0}}, prefixes: []string{"xoxb-", "xoxa-", "xoxp-", "xoxr-", "xoxs-"}, body: newCharset("A-Za-z0-9-"), min: 10, max: 255, valid: slackBody},
	&tokenRule{name: RuleStripeKey, anchors: []anchor{{"k_live_", 1}, {"k_test_", 1}}, prefixes: []string{"sk_live_", "rk_live_", "sk_test_", "rk_test_"}, body: alnum, min: 16, max: 255},
	&tokenRule{name: RuleAnthropicKey, anchors: []anchor{{"k-ant-", 1}}, prefixes: []string{"sk-ant-"}, body: b64url, min: 32, max: 255},
	&tokenRule{name: RuleOpenAIKey, anchors: []anchor{{"k-", 1}}, prefixes: []string{"sk-"}, body: b64url, min: 20, max: 255, valid: openAIBody},
	&tokenRule{name: RuleGoogleAPIKey, anchors: []anchor{{"AIza", 0}}, prefixes: []string{"AIza"}, body: b64url, min: 35, max: 35},
	&tokenRule{name: RuleGoogleOAuthToken, anchors: []anchor{{"ya29.", 0}}, prefixes: []string{"ya29."}, body: b64url, min: 20, max: 2048},
	&tokenRule{name: RuleNPMToken, anchors: []anchor{{"pm_", 1}}, prefixes: []string{"npm_"}, body: alnum, min: 36, max: 36},
	&npmrcRule{},
	&tokenRule{name: RulePyPIToken, anchors: []anchor{{"AgEI", 5}}, prefixes: []string{"pypi-AgEI"}, body: b64url, min: 50, max: 4096},
	&privateKeyRule{},
	&jwtRule{},
	&netrcRule{},
	&pypircRule{},
}

// tokenRule matches a literal prefix followed by a run of body bytes,
// the whole a word of its own: the token is the secret.
type tokenRule struct {
	name     string
	anchors  []anchor // what to search for: each finds candidates for some of prefixes
	prefixes []string
	body     *charset
	min, max int               // bounds on the body's length
	valid    func(string) bool // further checks on the body, if any
}

func (r *tokenRule) appendMatches(dst []Match, text string, limit int) []Match {
	for _, a := range r.anchors {
		a.each(text, func(at int) bool {
			m, ok := r.matchAt(text, at)
			if !ok {
				return true
			}
			dst = append(dst, m)
			return len(dst) != limit
		})
		if len(dst) == limit {
			break
		}
	}
	return dst
}

// matchAt returns the token that starts at text[at], if one does.
func (r *tokenRule) matchAt(text string, at int) (Match, bool) {
	// A token starts a word and does not continue a run of its own
	// body's bytes: were it allowed to, every "sk-" in "sk-sk-sk-…"
	// would scan the rest of the run again.
	if !wordStart(text, at) || (at > 0 && r.body[text[at-1]]) {
		return Match{}, false
	}
	for _, p := range r.prefixes {
		if !literalAt(text, at, p) {
			continue
		}
		bodyAt := at + len(p)
		n := r.body.runMax(text, bodyAt, r.max+1)
		if n < r.min || n > r.max || !wordEnd(text, bodyAt+n) {
			continue
		}
		if r.valid != nil && !r.valid(text[bodyAt:bodyAt+n]) {
			continue
		}
		return Match{Rule: r.name, Start: at, End: bodyAt + n}, true
	}
	return Match{}, false
}

// slackBody reports whether a Slack token's body starts with its
// numeric team or user id.
func slackBody(body string) bool {
	return body[0] >= '0' && body[0] <= '9'
}

// openAIBody reports whether the body of an "sk-" token is an OpenAI
// key: a project, service-account or admin key, one carrying OpenAI's
// "T3BlbkFJ" marker, or a legacy key of 48 letters and digits.
func openAIBody(body string) bool {
	for _, p := range []string{"proj-", "svcacct-", "admin-"} {
		if strings.HasPrefix(body, p) {
			return len(body)-len(p) >= 20
		}
	}
	if strings.HasPrefix(body, "ant-") {
		return false
	}
	if strings.Contains(body, "T3BlbkFJ") {
		return true
	}
	return len(body) == 48 && alnum.run(body, 0) == 48
}
