package sandbox

import (
	"path/filepath"
	"strings"
)

// The starter policy's secret paths: the one list the sandbox hides
// and the agent engine's IsSecretPath (agent/callpaths.go) labels.
var (
	secretNames = []string{".envrc", ".netrc", ".pgpass", ".npmrc", ".pypirc", ".git-credentials", ".htpasswd",
		"credentials", "credentials.json", "id_rsa", "id_dsa", "id_ecdsa", "id_ed25519", ".vault-token", ".dockercfg"}
	secretExts = []string{".pem", ".key", ".p12", ".pfx", ".jks", ".keystore"}
	// secretDirs hold credentials in every file; the two-element ones
	// are looked for under the home directory only.
	secretDirs = []string{".aws", ".ssh", ".gnupg", ".kube", ".docker", ".config/gcloud", ".config/gh", ".azure", ".password-store"}
)

// IsSecretName reports whether a file named base holds credentials by
// its name: `.env` and `.env.*`, private keys and keystores, registry
// and tool credentials. Public halves of key pairs (`*.pub`) are not
// secret.
func IsSecretName(base string) bool {
	if strings.HasSuffix(base, ".pub") {
		return false
	}
	if base == ".env" || strings.HasPrefix(base, ".env.") {
		return true
	}
	for _, n := range secretNames {
		if base == n {
			return true
		}
	}
	for _, x := range secretExts {
		if strings.HasSuffix(base, x) && len(base) > len(x) {
			return true
		}
	}
	return strings.HasPrefix(base, "service-account") && strings.HasSuffix(base, ".json")
}

// SecretDirs are the directories whose every file holds credentials
// (.ssh, .aws, .config/gcloud …), as path segments. The slice is shared:
// callers must not change it.
func SecretDirs() []string { return secretDirs }

// isSecretDir reports whether a directory named base holds credentials
// in every file wherever it is (.ssh, .aws, …).
func isSecretDir(base string) bool {
	for _, d := range secretDirs {
		if d == base {
			return true
		}
	}
	return false
}

// homeSecretDirs are the secret directories under home.
func homeSecretDirs(home string) []string {
	var out []string
	for _, d := range secretDirs {
		out = append(out, filepath.Join(home, filepath.FromSlash(d)))
	}
	return out
}
