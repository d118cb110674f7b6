package sandbox_test

import (
	"testing"

	"github.com/guardrun/guardrun/agent"
	"github.com/guardrun/guardrun/sandbox"
)

// The sandbox hides the files the agent engine labels secret: the two
// lists of names agree.
func TestSecretNamesAgreeWithTheEngine(t *testing.T) {
	for _, name := range []string{".env", ".env.local", ".env.production", ".envrc", ".netrc", ".npmrc", ".pypirc",
		".git-credentials", "credentials", "credentials.json", "id_rsa", "id_ed25519", "server.pem", "tls.key",
		"store.p12", "app.jks", "service-account-prod.json", ".vault-token", ".dockercfg", ".pgpass", ".htpasswd",
		"id_rsa.pub", "README.md", "env", "environment.py", ".pem", "main.go", "key", "keys.txt"} {
		if got, want := sandbox.IsSecretName(name), agent.IsSecretPath("/w/"+name); got != want {
			t.Errorf("%s: sandbox says secret=%v, the engine %v", name, got, want)
		}
	}
}
