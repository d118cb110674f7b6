package agent

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// budgetPolicy prices one model, sets a small context budget and has
// guards that report the account and add context to prompts.
const budgetPolicy = `var @prices = {
  "gemini-2.5-pro": { input: 1.25, output: 10 },
  "gemini-*": { input: 0.5, output: 1 }
}
var @contextBudget = 100
guard @spent before op:model = when [
  @mx.op.name == "model.before" && @mx.session.tokens.total >= 1000 => deny "over 1000 tokens"
  * => allow
]
guard @a before op:prompt = when [
  * => allow with { context: "first note" }
]
guard @b before op:prompt = when [
  * => allow with { context: "second note, a little longer than the first" }
]
guard @c before op:prompt = when [
  * => allow with { context: "third note, which no longer fits in the hundred bytes of this turn" }
]
`

func budgetEngine(t *testing.T, store Store) *Engine {
	t.Helper()
	e, err := New(context.Background(), Config{Store: store, Policies: []Policy{{Name: "b.guard", Source: []byte(budgetPolicy)}}})
	require.NoError(t, err)
	t.Cleanup(e.Close)
	return e
}

func model(kind Kind, text, name string, usage *Usage) Event {
	return Event{Kind: kind, Session: "s1", Text: text, Model: name, Usage: usage}
}

// account reads the session's account through a decision-free update.
func account(t *testing.T, store Store, id string) Account {
	t.Helper()
	var a Account
	require.NoError(t, store.Update(context.Background(), id, func(s *Session) error {
		a = s.Account.clone()
		return nil
	}))
	return a
}

func TestAccountUsageReplacesCountedText(t *testing.T) {
	store := NewMemoryStore()
	e := budgetEngine(t, store)
	ctx := context.Background()
	e.Decide(ctx, model(ModelBefore, strings.Repeat("word ", 40), "gemini-2.5-pro", nil))
	a := account(t, store, "s1")
	u := a.Models["gemini-2.5-pro"]
	require.Equal(t, int64(1), u.Calls)
	require.Positive(t, u.Input, "the request's text is counted")
	require.Equal(t, u.Input, u.Counted)
	// Streamed chunks report the call's usage so far: the largest wins.
	e.Decide(ctx, model(ModelAfter, "chunk 1", "gemini-2.5-pro", &Usage{Input: 300, Output: 10}))
	e.Decide(ctx, model(ModelAfter, "chunk 2", "gemini-2.5-pro", &Usage{Input: 300, Output: 25}))
	a = account(t, store, "s1")
	require.Equal(t, ModelUsage{Calls: 1, Input: 300, Output: 25}, a.Models["gemini-2.5-pro"])
	// A host that sends text only: the response's chunks are counted.
	e.Decide(ctx, model(ModelBefore, "", "gemini-2.5-flash", nil))
	e.Decide(ctx, model(ModelAfter, "some answer text", "gemini-2.5-flash", nil))
	e.Decide(ctx, model(ModelAfter, "more answer text", "gemini-2.5-flash", nil))
	f := account(t, store, "s1").Models["gemini-2.5-flash"]
	require.Equal(t, int64(1), f.Calls)
	require.Equal(t, int64(0), f.Input)
	require.Positive(t, f.Output)
	require.Equal(t, f.Output, f.Counted)
}

func TestSessionObjectCost(t *testing.T) {
	store := NewMemoryStore()
	e := budgetEngine(t, store)
	ctx := context.Background()
	e.Decide(ctx, model(ModelAfter, "", "gemini-2.5-pro", &Usage{Input: 400000, Output: 100000}))
	e.Decide(ctx, model(ModelAfter, "", "gemini-2.5-flash", &Usage{Input: 1000000, Output: 0}))
	e.Decide(ctx, model(ModelAfter, "", "claude-x", &Usage{Input: 10, Output: 0}))
	require.NoError(t, store.Update(ctx, "s1", func(s *Session) error {
		o := e.sessionObject(s, Event{Session: "s1"})
		require.Equal(t, 0.5+1+0.5, o.Values["cost"], "exact price, then the glob; claude-x unpriced")
		require.Equal(t, []any{"claude-x"}, o.Values["unpriced"])
		require.Equal(t, float64(3), o.Values["modelCalls"])
		return nil
	}))
}

func TestBadPricesFailToLoad(t *testing.T) {
	for _, src := range []string{`var @prices = "cheap"`, `var @prices = { m: { input: 1 } }`, `var @prices = { m: { input: -1, output: 1 } }`, `var @contextBudget = "big"`} {
		_, err := New(context.Background(), Config{Store: NewMemoryStore(), Policies: []Policy{{Name: "p.guard", Source: []byte(src)}}})
		require.Error(t, err, src)
	}
}

// TestAccountSurvivesResume: the account is in the journal, so a new
// process (engine) after the host's session end and a resume reads it,
// and the budget guard still refuses.
func TestAccountSurvivesResume(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	require.NoError(t, os.Mkdir(dir, 0o700))
	ctx := context.Background()
	open := func() (*Engine, *FileStore) {
		fs, err := NewFileStore(dir)
		require.NoError(t, err)
		return budgetEngine(t, fs), fs
	}
	e, _ := open()
	require.Equal(t, Allow, e.Decide(ctx, model(ModelBefore, "", "gemini-2.5-pro", nil)).Outcome)
	require.Equal(t, Allow, e.Decide(ctx, model(ModelAfter, "", "gemini-2.5-pro", &Usage{Input: 900, Output: 200})).Outcome)
	require.Equal(t, Allow, e.Decide(ctx, Event{Kind: SessionEnd, Session: "s1", Source: "exit"}).Outcome)
	e2, fs := open()
	require.Equal(t, Allow, e2.Decide(ctx, Event{Kind: SessionStart, Session: "s1", Source: "resume"}).Outcome)
	require.Equal(t, ModelUsage{Calls: 1, Input: 900, Output: 200}, account(t, fs, "s1").Models["gemini-2.5-pro"])
	d := e2.Decide(ctx, model(ModelBefore, "", "gemini-2.5-pro", nil))
	require.Equal(t, Deny, d.Outcome)
	require.True(t, strings.HasPrefix(d.Reason, "over 1000 tokens (guard @spent)."), d.Reason)
}

// TestJournalAccount: the account round-trips through snapshots and
// deltas, and a version-4 record without the account section (written
// before it existed) still reads, as an empty account.
func TestJournalAccount(t *testing.T) {
	a := &Session{ID: "j", Seq: 1, Files: map[string]string{"/f": "secret"}}
	buf := append([]byte(journalMagic), appendRecord(nil, nil, a)...)
	b := cloneSession(a)
	b.Seq = 2
	b.Account = Account{Models: map[string]ModelUsage{"m": {Calls: 2, Input: 10, Output: 5, Counted: 3}},
		Call: openCall{Model: "m", In: 7, Out: 5, Measured: true, Open: true}, TurnContext: 42}
	buf = appendRecord(buf, a, b)
	c := cloneSession(b)
	c.Seq = 3
	buf = appendRecord(buf, b, c) // unchanged account: no section
	got, _, err := decodeJournal(buf)
	require.NoError(t, err)
	require.Equal(t, b.Account, got.Account)
	require.Equal(t, 3, got.Seq)
	snap := append([]byte(journalMagic), appendRecord(nil, nil, c)...)
	got, _, err = decodeJournal(snap)
	require.NoError(t, err)
	require.Equal(t, b.Account, got.Account)
}

func TestContextBatchedUnderTurnBudget(t *testing.T) {
	store := NewMemoryStore()
	e := budgetEngine(t, store)
	ctx := context.Background()
	d := e.Decide(ctx, Event{Kind: PromptSubmit, Session: "s1", Text: "go"})
	require.Len(t, d.Context, 1, "one message")
	text := d.Context[0].Text
	require.True(t, strings.HasPrefix(text, "[@a] first note\n\n[@b] second note"), text)
	require.Contains(t, text, "[guardrun] context dropped over this turn's context budget")
	require.Contains(t, text, "@c (66 bytes)")
	require.NotContains(t, text, "third note")
	// What was delivered counts against the turn; the next prompt starts
	// a new turn with the whole budget.
	require.Equal(t, 67, account(t, store, "s1").TurnContext)
	d = e.Decide(ctx, Event{Kind: PromptSubmit, Session: "s1", Text: "again"})
	require.Contains(t, d.Context[0].Text, "[@a] first note")
}

func TestSingleContextUnchanged(t *testing.T) {
	s := &Session{}
	e := &Engine{cfg: Config{MaxTurnContext: 1000}}
	d := Decision{Context: []Injection{{Source: "@g", Text: "note"}}}
	e.batchContext(s, &d)
	require.Equal(t, []Injection{{Source: "@g", Text: "note"}}, d.Context)
	require.Equal(t, 4, s.Account.TurnContext)
	d = Decision{Context: []Injection{{Source: "@g", Text: strings.Repeat("x", 1000)}}}
	e.batchContext(s, &d)
	require.Equal(t, "guardrun", d.Context[0].Source)
	require.Contains(t, d.Context[0].Text, "@g (1000 bytes)")
}
