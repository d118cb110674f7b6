package guardrun_test

import (
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/guardrun/guardrun/agent"
)

// The README opens with the two set-up commands of a fresh machine, the
// first guarding an agent (the main job) and the second `make test`, and
// its agent quickstart comes before the script one.
func TestReadmeOpensWithAgentPath(t *testing.T) {
	b, err := os.ReadFile("README.md")
	require.NoError(t, err)
	readme := string(b)
	start := strings.Index(readme, "```sh\n")
	require.True(t, start >= 0 && start < 40, "the README starts with a sh block")
	block := readme[start+len("```sh\n"):]
	block = block[:strings.Index(block, "```")]
	lines := strings.Split(strings.TrimSpace(block), "\n")
	require.Len(t, lines, 2, block)
	require.Contains(t, lines[0], "guardrun\" init claude")
	require.True(t, strings.HasPrefix(lines[1], "make test"), lines[1])
	agentAt, scriptAt := strings.Index(readme, "## Quickstart: guard an agent"), strings.Index(readme, "## Quickstart: scripts")
	require.True(t, agentAt > 0 && scriptAt > agentAt, "the agent quickstart comes first")
	intro := readme[:strings.Index(readme, "## ")]
	require.Less(t, strings.Index(intro, "agent"), strings.Index(intro, "script"), "the introduction speaks of the agent first")
}

// docs/agents.md documents every field of the generic hook's input (the
// JSON fields of agent.Event) and shows an example of every event.
func TestGenericHookDocumented(t *testing.T) {
	b, err := os.ReadFile("docs/agents.md")
	require.NoError(t, err)
	page := string(b)
	at := strings.Index(page, "## The generic hook")
	require.Positive(t, at, "docs/agents.md has a section on the generic hook")
	section := page[at:]
	typ := reflect.TypeOf(agent.Event{})
	for i := range typ.NumField() {
		name, _, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ",")
		if name == "" || name == "-" || name == "event" {
			continue
		}
		require.Contains(t, section, "| `"+name+"` |", "the generic hook's field %s is not documented", name)
	}
	for _, k := range agent.Kinds {
		require.Contains(t, section, "```json file=hook/testdata/payloads/generic/"+string(k)+".json", "no example of %s", k)
	}
}
