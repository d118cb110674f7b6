package agent

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestShownPath(t *testing.T) {
	for _, c := range []struct{ p, ws, home, want string }{
		{"/w/.env", "/w", "/h", ".env"},
		{"/w/app/.env", "/w/", "/h", "app/.env"},
		{"/h/.aws/credentials", "/w", "/h", "~/.aws/credentials"},
		{"/h/proj/.env", "/h/proj", "/h", ".env"},
		{"/etc/secret.pem", "/w", "/h", "/etc/secret.pem"},
		{"/w", "/w", "/h", "/w"},
		{"/wx/.env", "/w", "/h", "/wx/.env"},
		{".env", "", "", ".env"},
		{"/w/key (a link to /w/.env)", "/w", "/h", "key (a link to .env)"},
		{"/w/key (a copy of /h/.ssh/id_rsa)", "/w", "/h", "key (a copy of ~/.ssh/id_rsa)"},
		{"/a/.env", "/", "/", "/a/.env"},
	} {
		if got := shownPath(c.p, c.ws, c.home); got != c.want {
			t.Errorf("shownPath(%q, %q, %q) = %q, want %q", c.p, c.ws, c.home, got, c.want)
		}
	}
}

// An output's origin names the file it came from, unless an input of the
// call carries a confidentiality label: the log masks that input, and
// the file it names is written nowhere else (the log's brought field, a
// later denial's reason).
func TestOriginFileNotForMaskedInput(t *testing.T) {
	ctx := context.Background()
	store := NewMemoryStore()
	e, err := New(ctx, Config{Store: store, Workspace: "/w", Policies: []Policy{{Name: "p.guard", Source: []byte(`var tools @t = {
  Read: { labels: ["fs:r"] }
}
`)}}})
	require.NoError(t, err)
	defer e.Close()
	read := func(path, out string) {
		e.Decide(ctx, Event{Kind: ToolAfter, Session: "s", Tool: "Read", Input: map[string]any{"file_path": path}, Output: out})
	}
	read("/w/.env", "API_KEY=sk-live-4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c\nVAULT=/w/vault/k7Qx9Lm2Rt.txt\n")
	read("/w/vault/k7Qx9Lm2Rt.txt", "first line of the vault\n")
	read("/w/notes.txt", "plain notes\n")
	var files, labels []string
	require.NoError(t, store.Update(ctx, "s", func(s *Session) error {
		for _, o := range s.Origins {
			if o.Event == ToolAfter {
				files = append(files, o.File)
				labels = append(labels, strings.Join(o.Labels, ","))
			}
		}
		return nil
	}))
	// .env brings two origins (src:file context-wide, secret as prints);
	// the vault file named in the secret carries it in its path.
	require.Equal(t, []string{".env", ".env", "", "notes.txt"}, files, "labels %q", labels)
	require.Equal(t, "secret", labels[2], "the vault path is not confidential: the test shows nothing")
}
