package agent

import (
	"fmt"
	"maps"
	"math"
	"sort"
	"strings"

	"github.com/guardrun/guardrun/interp/value"
)

// Usage is the tokens a host reported for a model call (Gemini's
// usageMetadata: promptTokenCount, candidatesTokenCount). Hosts stream a
// response in chunks whose usage is the call's so far, so the engine takes
// the largest report of a call, never the sum.
type Usage struct {
	Input  int64 `json:"input"`
	Output int64 `json:"output"`
}

// ModelUsage is what a session spent on one model.
type ModelUsage struct {
	Calls  int64 `json:"calls"`
	Input  int64 `json:"input"`
	Output int64 `json:"output"`
	// Counted is how many of the tokens were counted from the request or
	// response text (the host reported no usage for their call) rather
	// than reported by the host.
	Counted int64 `json:"counted,omitempty"`
}

// openCall is the model call the session's latest model events belong
// to: what was counted of it so far, and whether that came from the
// host's usage fields (Measured) or from its text.
type openCall struct {
	Model    string `json:"model,omitempty"`
	In       int64  `json:"in,omitempty"`
	Out      int64  `json:"out,omitempty"`
	Measured bool   `json:"measured,omitempty"`
	Open     bool   `json:"open,omitempty"`
}

// Account is a session's spending (`@mx.session`): model calls and
// tokens by model, the open call, and the context injected this turn. It
// is saved with the session, so it survives the host's session end and a
// resume under the same id.
type Account struct {
	Models map[string]ModelUsage `json:"models,omitempty"`
	Call   openCall              `json:"call,omitzero"`
	// TurnContext is the bytes of context injected into the agent since
	// the turn began (the latest prompt.submit).
	TurnContext int `json:"turn_context,omitempty"`
}

// maxModels bounds the models an account keeps by name (a host could send
// any name); later ones are counted under otherModel.
const (
	maxModels    = 64
	maxModelName = 128
	otherModel   = "other"
	unknownModel = "unknown"
)

// DefaultTurnContext is the per-turn context budget (bytes) when neither
// Config.MaxTurnContext nor a policy's `@contextBudget` sets one.
const DefaultTurnContext = 16 << 10

func (a *Account) isZero() bool {
	return len(a.Models) == 0 && a.Call == (openCall{}) && a.TurnContext == 0
}

func (a *Account) equal(b *Account) bool {
	return maps.Equal(a.Models, b.Models) && a.Call == b.Call && a.TurnContext == b.TurnContext
}

func (a *Account) clone() Account {
	c := *a
	c.Models = maps.Clone(a.Models)
	return c
}

// modelKey is the key an account keeps a model's usage under.
func (a *Account) modelKey(name string) string {
	if name == "" {
		name = unknownModel
	}
	if len(name) > maxModelName {
		name = name[:maxModelName]
	}
	if _, ok := a.Models[name]; !ok && len(a.Models) >= maxModels {
		return otherModel
	}
	return name
}

func (a *Account) add(model string, calls, in, out, counted int64) {
	if a.Models == nil {
		a.Models = map[string]ModelUsage{}
	}
	u := a.Models[model]
	u.Calls += calls
	u.Input = max(0, u.Input+in)
	u.Output = max(0, u.Output+out)
	u.Counted = max(0, u.Counted+counted)
	a.Models[model] = u
}

// modelEvent accounts a model.before or model.after event. A model.before
// opens a call, its input counted from the request text unless the host
// reported usage; a model.after belongs to the open call (one is opened
// when the host sent no model.before), and its usage replaces what the
// text counted: the largest report of the call wins, since a streamed
// response reports the call's usage so far with every chunk. A
// model.after without usage adds its text's tokens to the output, unless
// the call already has reported usage.
func (a *Account) modelEvent(ev Event) {
	if ev.Kind == ModelBefore || !a.Call.Open || (ev.Model != "" && a.modelKey(ev.Model) != a.Call.Model) {
		a.Call = openCall{Model: a.modelKey(ev.Model), Open: true}
		a.add(a.Call.Model, 1, 0, 0, 0)
		if ev.Kind == ModelBefore && ev.Usage == nil {
			n := countTokens(ev.Text)
			a.Call.In = n
			a.add(a.Call.Model, 0, n, 0, n)
			return
		}
	}
	c := &a.Call
	switch {
	case ev.Usage != nil:
		if !c.Measured {
			// The host's count replaces what its text was counted as.
			a.add(c.Model, 0, -c.In, -c.Out, -(c.In + c.Out))
			c.In, c.Out, c.Measured = 0, 0, true
		}
		in, out := max(c.In, ev.Usage.Input), max(c.Out, ev.Usage.Output)
		a.add(c.Model, 0, in-c.In, out-c.Out, 0)
		c.In, c.Out = in, out
	case !c.Measured && ev.Kind == ModelAfter:
		n := countTokens(ev.Text)
		c.Out += n
		a.add(c.Model, 0, 0, n, n)
	}
}

// countTokens counts text's tokens with the registered tokenizer (package
// tokens, which the guardrun command links), else estimates them as one
// per four bytes (the slim guardrun-hook binary links no tokenizer).
func countTokens(text string) int64 {
	if text == "" {
		return 0
	}
	if count := value.RegisteredTokenCounter(); count != nil {
		if n, err := count(&value.Variable{}, text); err == nil {
			return int64(n)
		}
	}
	return int64(len(text)+3) / 4
}

// Price is what a model costs, in dollars per million tokens.
type Price struct {
	Input  float64
	Output float64
}

// budget is what a policy sets of the session's budgets: its price table
// (`var @prices = { "model or glob": { input: $/M, output: $/M } }`) and
// its per-turn context budget (`var @contextBudget = bytes`).
type budget struct {
	prices        []pricedModel
	contextBudget int
}

type pricedModel struct {
	pattern string
	price   Price
}

// readBudget reads a loaded policy's `@prices` and `@contextBudget`. A
// malformed table is an error: a budget the policy meant to set and did
// not would fail open.
func readBudget(vars func(string) (*value.Variable, bool)) (budget, error) {
	var b budget
	if v, ok := vars("prices"); ok && v != nil {
		o, ok := v.Data.(*value.Object)
		if !ok {
			return b, fmt.Errorf("@prices must be an object of model → { input, output } (dollars per million tokens)")
		}
		for _, k := range o.Keys {
			p, ok := o.Values[k].(*value.Object)
			in, okIn := number(p, "input")
			out, okOut := number(p, "output")
			if !ok || !okIn || !okOut || in < 0 || out < 0 {
				return b, fmt.Errorf("@prices[%q] must be { input: n, output: n } (dollars per million tokens, not negative)", k)
			}
			b.prices = append(b.prices, pricedModel{pattern: k, price: Price{Input: in, Output: out}})
		}
	}
	if v, ok := vars("contextBudget"); ok && v != nil {
		n, ok := v.Data.(float64)
		if !ok || n < 0 {
			return b, fmt.Errorf("@contextBudget must be a number of bytes")
		}
		b.contextBudget = int(n)
	}
	return b, nil
}

func number(o *value.Object, key string) (float64, bool) {
	if o == nil {
		return 0, false
	}
	n, ok := o.Values[key].(float64)
	return n, ok
}

// price is a model's price: an exact key before a glob (`gemini-2.5-*`,
// `*`), the first matching glob of a policy; across policies the highest
// price wins (a workspace policy can make the budget stricter, never
// looser). ok is false when no policy prices the model.
func (e *Engine) price(model string) (Price, bool) {
	var best Price
	found := false
	for _, l := range e.layers {
		p, ok := l.budget.price(model)
		if !ok {
			continue
		}
		best.Input, best.Output = max(best.Input, p.Input), max(best.Output, p.Output)
		found = true
	}
	return best, found
}

func (b budget) price(model string) (Price, bool) {
	for _, p := range b.prices {
		if p.pattern == model {
			return p.price, true
		}
	}
	for _, p := range b.prices {
		if globMatch(p.pattern, model) {
			return p.price, true
		}
	}
	return Price{}, false
}

// turnContextCap is the per-turn context budget: the smallest of
// Config.MaxTurnContext and the policies' `@contextBudget`, or
// DefaultTurnContext when none sets one.
func (e *Engine) turnContextCap() int {
	c := e.cfg.MaxTurnContext
	for _, l := range e.layers {
		if n := l.budget.contextBudget; n > 0 && (c <= 0 || n < c) {
			c = n
		}
	}
	if c <= 0 {
		return DefaultTurnContext
	}
	return c
}

// sessionObject is `@mx.session`: the session's account as a policy
// reads it.
//
//	{ id, created, age (seconds), events,
//	  modelCalls, tokens: { input, output, total, counted (of them,
//	    counted from text: the host reported no usage) },
//	  models: { name: { calls, input, output, cost, priced, counted } },
//	  cost (dollars, priced models only), unpriced: [model names],
//	  toolCalls (all tools), tools: { name: { allow, ask, deny, total } },
//	  turn: { context (bytes injected this turn), contextBudget } }
func (e *Engine) sessionObject(s *Session, ev Event) *value.Object {
	a := &s.Account
	o := value.NewObject()
	o.Set("id", s.ID)
	o.Set("created", s.Created.UTC().Format("2006-01-02T15:04:05Z07:00"))
	age := e.when(ev).Sub(s.Created).Seconds()
	o.Set("age", max(0, float64(int64(age))))
	o.Set("events", float64(s.Seq))
	o.Set("prompt", s.Prompt)
	names := make([]string, 0, len(a.Models))
	for k := range a.Models {
		names = append(names, k)
	}
	sort.Strings(names)
	models := value.NewObject()
	var calls, in, out, counted int64
	var cost float64
	unpriced := []any{}
	for _, k := range names {
		u := a.Models[k]
		calls, in, out = calls+u.Calls, in+u.Input, out+u.Output
		counted += u.Counted
		m := value.NewObject()
		m.Set("calls", float64(u.Calls))
		m.Set("input", float64(u.Input))
		m.Set("output", float64(u.Output))
		m.Set("counted", float64(u.Counted))
		p, ok := e.price(k)
		c := (float64(u.Input)*p.Input + float64(u.Output)*p.Output) / 1e6
		if !ok && u.Input+u.Output > 0 {
			unpriced = append(unpriced, k)
		}
		m.Set("priced", ok)
		m.Set("cost", math.Round(c*1e4)/1e4)
		cost += c
		models.Set(k, m)
	}
	o.Set("modelCalls", float64(calls))
	tokens := value.NewObject()
	tokens.Set("input", float64(in))
	tokens.Set("output", float64(out))
	tokens.Set("total", float64(in+out))
	tokens.Set("counted", float64(counted))
	o.Set("tokens", tokens)
	o.Set("models", models)
	// Rounded to a hundredth of a cent: a price per million tokens
	// leaves float noise a message would show.
	o.Set("cost", math.Round(cost*1e4)/1e4)
	o.Set("unpriced", unpriced)
	var total int
	for _, c := range s.Counts {
		total += c.Total
	}
	o.Set("toolCalls", float64(total))
	o.Set("tools", s.countsObject())
	turn := value.NewObject()
	turn.Set("context", float64(a.TurnContext))
	turn.Set("contextBudget", float64(e.turnContextCap()))
	o.Set("turn", turn)
	return o
}

// batchContext applies the per-turn context budget to a decision's
// injections: they are batched into one message, in the order the guards
// gave them, each under its source (the guard's name), as long as the
// turn's budget lasts; what does not fit is dropped, and the message ends
// with a note naming each dropped source and its size. A single
// injection that fits is left as it is. The bytes delivered count against
// the turn (Account.TurnContext, reset by the next prompt.submit).
func (e *Engine) batchContext(s *Session, d *Decision) {
	if len(d.Context) == 0 {
		return
	}
	limit := e.turnContextCap()
	left := max(0, limit-s.Account.TurnContext)
	var kept, dropped []Injection
	used := 0
	for _, in := range d.Context {
		size := len(in.Text)
		if len(d.Context) > 1 {
			size += len(in.Source) + len("[] \n\n")
		}
		if size > left-used {
			dropped = append(dropped, in)
			continue
		}
		kept = append(kept, in)
		used += size
	}
	s.Account.TurnContext += used
	if len(dropped) == 0 && len(kept) == 1 {
		return
	}
	var b strings.Builder
	var sources []string
	for _, in := range kept {
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		fmt.Fprintf(&b, "[%s] %s", in.Source, in.Text)
		sources = append(sources, in.Source)
	}
	if len(dropped) > 0 {
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		parts := make([]string, len(dropped))
		for i, in := range dropped {
			parts[i] = fmt.Sprintf("%s (%d bytes)", in.Source, len(in.Text))
		}
		note := fmt.Sprintf("[guardrun] context dropped over this turn's context budget (%d of %d bytes used): %s",
			s.Account.TurnContext, limit, strings.Join(parts, ", "))
		b.WriteString(capText(note))
		sources = append(sources, "guardrun")
	}
	d.Context = []Injection{{Source: strings.Join(sources, ", "), Text: b.String()}}
}
