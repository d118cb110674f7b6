package credscan

import (
	"strings"
	"testing"
)

// Test credentials are built by concatenation so that this file does
// not itself hold one whole: scanners run over the repository too.
var (
	awsKeyID     = "AKIA" + "UJZDE8GXD6NCF10E"
	awsSecret    = "El2hpChYgCfrL1spNxny" + "VmihA+2O76UMFxFkM+R5"
	githubToken  = "ghp_" + "sMehGAkWvj7FAc9QeWJKY40uvSwMFLZDe1f8"
	githubOAuth  = "gho_" + "sMehGAkWvj7FAc9QeWJKY40uvSwMFLZDe1f8"
	githubPAT    = "github_pat_" + "rESQedUStPKR0CsTy4Qwb8_DwkNhFdnXsiVpzz63FfkCzJr4i0B3JrTAwR4y9ojfljoQoaF1LlqsajAIxN"
	gitlabPAT    = "glpat-" + "Oqg6YYZYn9ZhyiA4uoRg"
	slackToken   = "xoxb-" + "109281590139-6245957117777-tfjgVvVqE1SkHbn88HxjSI6b"
	stripeLive   = "sk_live_" + "WHtP3fS2qHx6kwXoIIXGvOoN"
	stripeTest   = "sk_test_" + "WHtP3fS2qHx6kwXoIIXGvOoN"
	stripeRk     = "rk_live_" + "WHtP3fS2qHx6kwXoIIXGvOoN"
	openAILegacy = "sk-" + "ZYW2mZp0zVZomHFwUbbY" + "T3BlbkFJ" + "rEqmSM9wCZ7Uw9xfogoE"
	openAIProj   = "sk-proj-" + "zRA9a9SkpXz9w3QlY7Zkuvqdt7s8Stqcbnr3yBdGBLEPH1qhT61qtc4xatws8phP9nhFyJfm5d"
	anthropicKey = "sk-ant-" + "api03-i4PzJ59FHz5r1pY4OjE2jBMptUsGr7CmY-uCu3ZR1zTOlUcR64cXQLioDnkHIfxIq2HZt_PlJhx2jIclHkCiHp6bR1IqfAA"
	googleKey    = "AIza" + "EouHgxzNNAL5wIScGebcy8F5n3_YNBDRzrZ"
	googleOAuth  = "ya29." + "SgqbjG3uhkWKFLf6xuI5aHUQPFeNBTxaQWk8JzFalHlsZfYcMMDktXP_tKsf"
	npmToken     = "npm_" + "01T5GOBUSZGi6HWGK10Zb0RLZ5TR9SPofbci"
	pypiToken    = "pypi-" + "AgEIcHlwaS5vcmcUnW5gcF-Ha6ili8GjHEAD6_Wj9KfzjsQGMrb9h-ImB-LK777pzNk8cL6j5IXAAjlsHUqJo"
	jwt          = "eyJ" + "hbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9." + "eyJ" + "zdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ." + "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
	pemBlock     = "-----BEGIN " + "RSA PRIVATE KEY-----\nUD/+Ydua+5ZMs1SWOpQaPRYpzbLGViYXjU2JgJngKtFI3OyV2dZAkg05rK+gqv81\nRKMGHZEM9YpvujA/C5Q52ryFlwRlOEVHzc0X0AWIRh/JUqBlIFXZ53Ncqe28+ajY\n-----END RSA PRIVATE KEY-----"
	opensshKey   = "-----BEGIN " + "OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\nQyNTUxOQAAACBl3tYJ5vW4fLqR8N7KxJ2mP9sT6uV1wX0yZ3aB4cD5eF\n-----END OPENSSH PRIVATE KEY-----"
	genericValue = "7770H2DCpYgojjHRg80" + "USP2W5DfJXcaY"
	briefValue   = "sk-live-" + "7Hq2ZpX9vB4nR8tY3mW6kJ1cF5dG0sLa"
)

// positive is a text holding one credential, written where the text has
// "§§", that rule must find with exactly its span.
type positive struct {
	rule, secret, text string
}

var positives = []positive{
	{RuleAWSAccessKeyID, awsKeyID, "AWS_ACCESS_KEY_ID=§§\n"},
	{RuleAWSAccessKeyID, awsKeyID, `{"AccessKeyId": "§§", "Expiration": "2026-01-01"}`},
	{RuleAWSAccessKeyID, awsKeyID, "aws_access_key_id: §§"},
	{RuleAWSAccessKeyID, awsKeyID, "export AWS_ACCESS_KEY_ID=§§; aws s3 ls"},
	{RuleAWSSecretAccessKey, awsSecret, "[default]\naws_access_key_id = x\naws_secret_access_key = §§\n"},
	{RuleAWSSecretAccessKey, awsSecret, `export AWS_SECRET_ACCESS_KEY="§§"`},
	{RuleAWSSecretAccessKey, awsSecret, `{"Credentials": {"SecretAccessKey": "§§"}}`},
	{RuleAWSSecretAccessKey, awsSecret, "aws_secret_access_key: '§§'\n"},
	{RuleGitHubToken, githubToken, "GITHUB_TOKEN=§§"},
	{RuleGitHubToken, githubToken, "git clone https://§§@github.com/org/repo.git"},
	{RuleGitHubToken, githubOAuth, `{"access_token":"§§","token_type":"bearer"}`},
	{RuleGitHubToken, githubToken, `curl -H "Authorization: token §§" https://api.github.com/user`},
	{RuleGitHubPAT, githubPAT, "export GH_TOKEN=§§"},
	{RuleGitHubPAT, githubPAT, "token: §§\n"},
	{RuleGitLabPAT, gitlabPAT, "git clone https://oauth2:§§@gitlab.com/g/p.git"},
	{RuleGitLabPAT, gitlabPAT, "GITLAB_TOKEN=\"§§\""},
	{RuleGitLabPAT, gitlabPAT, `curl --header "PRIVATE-TOKEN: §§" https://gitlab.com/api/v4/projects`},
	{RuleSlackToken, slackToken, "SLACK_BOT_TOKEN=§§"},
	{RuleSlackToken, slackToken, `{"ok": true, "token": "§§"}`},
	{RuleSlackToken, slackToken, "curl -H 'Authorization: Bearer §§' https://slack.com/api/auth.test"},
	{RuleStripeKey, stripeLive, `stripe.api_key = "§§"`},
	{RuleStripeKey, stripeTest, "curl https://api.stripe.com/v1/charges -u §§:"},
	{RuleStripeKey, stripeRk, "STRIPE_KEY: §§"},
	{RuleOpenAIKey, openAILegacy, "OPENAI_API_KEY=§§"},
	{RuleOpenAIKey, openAIProj, `{"openai": {"apiKey": "§§"}}`},
	{RuleOpenAIKey, openAIProj, `curl https://api.openai.com/v1/models -H "Authorization: Bearer §§"`},
	{RuleAnthropicKey, anthropicKey, "export ANTHROPIC_API_KEY=§§"},
	{RuleAnthropicKey, anthropicKey, `curl https://api.anthropic.com/v1/messages -H "x-api-key: §§"`},
	{RuleAnthropicKey, anthropicKey, "anthropic:\n  api_key: §§\n"},
	{RuleGoogleAPIKey, googleKey, "https://maps.googleapis.com/maps/api/geocode/json?address=x&key=§§&sensor=false"},
	{RuleGoogleAPIKey, googleKey, `"current_key": "§§"`},
	{RuleGoogleOAuthToken, googleOAuth, "Authorization: Bearer §§\r\n"},
	{RuleGoogleOAuthToken, googleOAuth, `{"access_token": "§§", "expires_in": 3599}`},
	{RuleNPMToken, npmToken, "NPM_TOKEN=§§"},
	{RuleNPMToken, npmToken, "//registry.npmjs.org/:_authToken=§§\n"},
	{RuleNPMRCAuthToken, "9f8e7d6c5b4a39281706f5e4", "//npm.pkg.internal/:_authToken=§§\n"},
	{RuleNPMRCAuthToken, "9f8e7d6c-5b4a-3928-1706-f5e4d3c2b1a0", `//registry.npmjs.org/:_authToken="§§"`},
	{RulePyPIToken, pypiToken, "[pypi]\nusername = __token__\npassword = §§\n"},
	{RulePyPIToken, pypiToken, "twine upload -u __token__ -p §§ dist/*"},
	{RulePrivateKey, pemBlock, "§§\n"},
	{RulePrivateKey, opensshKey, "cat ~/.ssh/id_ed25519\n§§\n$ "},
	{RulePrivateKey, strings.ReplaceAll(pemBlock, "\n", `\n`), `{"type": "service_account", "private_key": "§§\n"}`},
	{RulePrivateKey, strings.TrimSuffix(pemBlock, "\n-----END RSA PRIVATE KEY-----"), "§§\n\n[output truncated]"},
	{RuleJWT, jwt, "Authorization: Bearer §§"},
	{RuleJWT, jwt, "Set-Cookie: session=§§; Path=/; HttpOnly"},
	{RuleJWT, jwt, `{"id_token":"§§"}`},
	{RuleNetrcPassword, "hunter22", "machine api.github.com login octocat password §§\n"},
	{RuleNetrcPassword, "s3cr3t-Passw0rd", "machine ftp.internal\n  login deploy\n  password §§\n"},
	{RulePypircPassword, "s3cr3t-Passw0rd", "[distutils]\nindex-servers = pypi\n\n[pypi]\nusername = alice\npassword = §§\n"},
	{RulePypircPassword, "Tr0ub4dor&3x", "[testpypi]\nrepository = https://test.pypi.org/legacy/\nusername = bob\npassword=§§"},
	{RuleGenericAssignment, briefValue, "API_KEY=§§"},
	{RuleGenericAssignment, briefValue, "curl -d key=§§ https://api.internal/v1"},
	{RuleGenericAssignment, briefValue, `curl -d "api_key=§§&user=1" https://api.internal/v1`},
	{RuleGenericAssignment, genericValue, `{"client_id": "abc", "client_secret": "§§"}`},
	{RuleGenericAssignment, genericValue, "export TOKEN=§§\n"},
	{RuleGenericAssignment, genericValue, "database:\n  password: §§\n"},
	{RuleGenericAssignment, genericValue, "https://api.internal/v1/items?page=2&access_token=§§&sort=asc"},
	{RuleGenericAssignment, genericValue, `apiKey := "§§"`},
	{RuleGenericAssignment, genericValue, "mysql --user=root --password=§§ db"},
	{RuleGenericAssignment, genericValue, "DB_PASSWD='§§'"},
	{RuleGenericAssignment, genericValue, "X-Auth-Token: §§"},
	{RuleGenericAssignment, genericValue, "config.credentials = { 'secret' => '§§' }"},
	{RuleGenericAssignment, genericValue, `"Authorization": "Bearer §§"`},
	{RuleGenericAssignment, genericValue, `event tool.after Read { file_path: ".env" } => "KEY=§§"`},
	{RuleGenericAssignment, "c2Vzc2lvbi1rZXktOTQ3MjE4NTUzMg==", "SESSION_AUTH=§§\n"},
	{RuleGenericAssignment, "c2Vzc2lvbi1rZXktOTQ3MjE4NTUzMg=", `{"auth": "§§"}`},
}

func TestScanPositives(t *testing.T) {
	for _, p := range positives {
		text := strings.Replace(p.text, "§§", p.secret, 1)
		start := strings.Index(p.text, "§§")
		want := []Match{{Rule: p.rule, Start: start, End: start + len(p.secret)}}
		got := Scan(text)
		if !equalMatches(got, want) {
			t.Errorf("Scan(%q)\n got %v\nwant %v", text, describe(text, got), describe(text, want))
		}
		if !Has(text) {
			t.Errorf("Has(%q) = false", text)
		}
	}
}

func TestScanSeveral(t *testing.T) {
	text := "GITHUB_TOKEN=" + githubToken + "\nAWS_ACCESS_KEY_ID=" + awsKeyID + "\nAPI_KEY=" + briefValue + "\n"
	got := Scan(text)
	rules := []string{RuleGitHubToken, RuleAWSAccessKeyID, RuleGenericAssignment}
	secrets := []string{githubToken, awsKeyID, briefValue}
	if len(got) != len(rules) {
		t.Fatalf("Scan: %v", describe(text, got))
	}
	for i, m := range got {
		if m.Rule != rules[i] || text[m.Start:m.End] != secrets[i] {
			t.Errorf("match %d: %v", i, describe(text, got[i:i+1]))
		}
	}
}

// negatives must not match: identifiers and digests that look random,
// placeholders where a secret would go, and code that names secrets.
var negatives = []string{
	"id: 550e8400-e29b-41d4-a716-446655440000",
	"request_id=550e8400-e29b-41d4-a716-446655440000",
	"commit 3f786850e387550fdab836ed7e6dc881de23001b\nAuthor: A <a@b.c>",
	"sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
	"digest: sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
	"checksum = \"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\"",
	`<img src="data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==">`,
	"API_KEY=changeme",
	"API_KEY=changeme-changeme-1234",
	"API_KEY=xxxxxxxxxxxxxxxxxxxxxxxx",
	"API_KEY=<your-api-key>",
	"api_key: <YOUR_API_KEY_GOES_HERE_1234>",
	"token: ${GITHUB_TOKEN}",
	"password: ${DB_PASSWORD}",
	"API_KEY=$API_KEY_FROM_THE_ENVIRONMENT",
	"api_key=your-api-key-here-0123456789",
	"AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
	"password=aaaaaaaaaaaaaaaaaaaaaaaa",
	"TOKEN=dummy-token-value-1234567",
	"SECRET_KEY={{ vault_secret_key_0123 }}",
	"//registry.npmjs.org/:_authToken=${NPM_TOKEN}",
	`token := os.Getenv("GITHUB_TOKEN")`,
	`apiKey := config.LoadAPIKeyFromEnvironment2()`,
	"auth_url=https://auth.internal.corp/oauth2/token",
	"credentials_file=/home/user/.aws/credentials2",
	"Enter your password and login name, then press return.",
	"machine host login me password secret",
	"The key: a value that is not a secret at all",
	"-----BEGIN RSA PRIVATE KEY-----\n...\n-----END RSA PRIVATE KEY-----",
	"ghp_tooshort",
	"AKIA1234",
	"AKIAUJZDE8GXD6NCF10EXTRA",
	"sk-live-7Hq2ZpX9vB4nR8tY3mW6kJ1cF5dG0sLa without a key",
	"if token == \"7770H2DCpYgojjHRg80USP2W5DfJXcaY\" {",
	"eyJhbGciOiJIUzI1NiJ9 alone",
}

func TestScanNegatives(t *testing.T) {
	for _, text := range negatives {
		if got := Scan(text); len(got) != 0 {
			t.Errorf("Scan(%q) = %v, want none", text, describe(text, got))
		}
		if Has(text) {
			t.Errorf("Has(%q) = true", text)
		}
	}
}

func equalMatches(a, b []Match) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// describe shows matches with the text they cover.
func describe(text string, ms []Match) []string {
	var out []string
	for _, m := range ms {
		s := m.Rule + " "
		if 0 <= m.Start && m.Start <= m.End && m.End <= len(text) {
			s += strings.Clone(text[m.Start:m.End])
		}
		out = append(out, s)
	}
	return out
}

// TestScanManyBlocks finds every one of many short private key blocks
// (and every token before them): each rule's scan goes to the end of
// the text however many matches it has collected.
func TestScanManyBlocks(t *testing.T) {
	var b strings.Builder
	for range 10 {
		b.WriteString("GITHUB_TOKEN=" + githubToken + "\n")
	}
	for range 50 {
		b.WriteString("-----BEGIN " + "PRIVATE KEY-----\nUD/+Ydua+5ZMs1SWOpQaPRYpzbLGViYX\n-----END PRIVATE KEY-----\n")
	}
	text := b.String()
	got := Scan(text)
	if len(got) != 60 {
		t.Fatalf("Scan found %d matches, want 60", len(got))
	}
	for i, m := range got {
		want := RuleGitHubToken
		if i >= 10 {
			want = RulePrivateKey
		}
		if m.Rule != want {
			t.Errorf("match %d: %v", i, describe(text, got[i:i+1]))
		}
	}
}
