package client

import (
	"bytes"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The client mode is a hook command: whatever goes wrong (a bad command
// line, no server, no guardrun to start one) is the generic protocol's
// denial with exit status 1, never silence.
func TestClientFailsClosed(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	event := `{"event":"tool.before","data":{"session":"s","tool":"x","input":{"a":"b"}}}`
	noServer := func() (string, error) { return "", errors.New("no guardrun here") }
	none := filepath.Join(t.TempDir(), "none.sock")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--client", "claude"}, `not \"claude\"`},
		{[]string{"--client", "generic", "extra"}, "bad decision-server client command line"},
		{[]string{"--client", "generic", "--bogus"}, "bad decision-server client command line"},
		{[]string{"--client", "generic", "--socket", none}, "decision server at " + none},
		{[]string{"--client", "generic", "--socket", none, "--spawn"}, "no guardrun to start a decision server with: no guardrun here"},
	} {
		var out, errb bytes.Buffer
		code := Main(c.args, strings.NewReader(event), &out, &errb, noServer)
		require.Equal(t, 1, code, "%q", c.args)
		require.Contains(t, out.String(), `"continue":false`, "%q", c.args)
		require.Contains(t, out.String(), c.want, "%q", c.args)
	}
}

// The default socket is in guardrun's state directory.
func TestDefaultSocket(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_STATE_HOME", dir)
	s, err := DefaultSocket()
	require.NoError(t, err)
	require.Equal(t, filepath.Join(dir, "guardrun", "serve.sock"), s)
}
