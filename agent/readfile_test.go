package agent

import "testing"

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
