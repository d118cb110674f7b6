package agent

import (
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/guardrun/guardrun/interp/value"
	"github.com/guardrun/guardrun/taint"
)

// Exact value provenance. Every text an event brings in (the user's
// prompt, a tool's output) is indexed as values: each token (a run of
// characters between spaces and the separators of JSON, YAML and prose,
// stripped of surrounding punctuation: an address, an IBAN, a URL, a
// number, a word), each run of up to maxGram consecutive tokens (a name
// of several words) and of up to maxPhrase tokens opening with a capital
// (a title), each leaf of a structured output and the whole
// text. A value is lower-cased, its tokens joined by one space; a number
// is also indexed in its canonical form (98.70 as 98.7). There is no
// length floor, and a value matches only a whole indexed value: an IBAN
// sharing 18 characters with another is not that IBAN.
//
// The index keeps hashes, never text, beside the fingerprints (a
// separate hash domain, so that the two never match each other), each
// naming the origin of the event that brought the value in.
const maxGram = 4

// maxPhrase is the longest run of tokens indexed when it opens with a
// capital letter.
const maxPhrase = 8

// maxValueKeys bounds the keys one text adds (a huge output is indexed
// by its tokens first, then by as many runs of tokens as fit).
const maxValueKeys = 12000

// separators end a token wherever they stand.
func separator(r rune) bool {
	if unicode.IsSpace(r) {
		return true
	}
	switch r {
	case '"', '{', '}', '[', ']', '(', ')', ',', ';', '<', '>', '|', '`', '*':
		return true
	}
	return false
}

// trimToken strips the punctuation around a token ("IBAN:", "2023.",
// "'Spotify'").
func trimToken(t string) string {
	return strings.TrimFunc(t, func(r rune) bool {
		switch r {
		case '.', ':', '!', '?', '\'', '-', '=', '#':
			return true
		}
		return false
	})
}

var escapes = strings.NewReplacer(`\n`, " ", `\t`, " ", `\r`, " ")

// tokens are text's tokens, lower-cased.
func tokens(text string) []string {
	out, _ := tokensCase(text)
	return out
}

// tokensCase are text's tokens, lower-cased, and whether each began
// with a capital letter.
func tokensCase(text string) ([]string, []bool) {
	var out []string
	var caps []bool
	eachToken(text, func(t string, capital bool) {
		out = append(out, t)
		caps = append(caps, capital)
	})
	return out, caps
}

// appendTokens appends text's tokens, lower-cased, to dst: tokens into
// a buffer of the caller's (a decision looks up every argument's tokens
// and keeps none of the lists).
func appendTokens(dst []string, text string) []string {
	eachToken(text, func(t string, _ bool) { dst = append(dst, t) })
	return dst
}

// eachToken calls yield with each of text's tokens, lower-cased, and
// whether it began with a capital letter, in order (tokensCase without
// building its lists).
func eachToken(text string, yield func(tok string, capital bool)) {
	if strings.Contains(text, `\`) {
		// The escapes of a printed string (a Python dict's repr) end
		// tokens as the characters they stand for would.
		text = escapes.Replace(text)
	}
	add := func(f string) {
		if t := trimToken(f); t != "" {
			yield(strings.ToLower(t), t[0] >= 'A' && t[0] <= 'Z')
		}
	}
	// The fields of strings.FieldsFunc(text, separator), without
	// building them first.
	start := -1
	for i, r := range text {
		if r < utf8.RuneSelf && asciiSeparator[r] || r >= utf8.RuneSelf && separator(r) {
			if start >= 0 {
				add(text[start:i])
				start = -1
			}
		} else if start < 0 {
			start = i
		}
	}
	if start >= 0 {
		add(text[start:])
	}
}

// asciiSeparator is separator for the ASCII characters.
var asciiSeparator = func() (t [utf8.RuneSelf]bool) {
	for r := range t {
		t[r] = separator(rune(r))
	}
	return t
}()

func valueHash(key string) uint64 { return fnvMix(fnvAdd(valueSeed, key)) }

// valueSeed is the hash state of valueHash's prefix.
var valueSeed = fnvAdd(fnvOffset, "\x01value\x00")

// gramHashes calls add with the value hash of each run of toks from
// start i of n = 2…max tokens joined by spaces (valueHash of
// strings.Join(toks[i:i+n], " ")), hashing each token once. It stops
// when add returns false.
func gramHashes(toks []string, i, max int, add func(n int, h uint64) bool) {
	h := fnvAdd(valueSeed, toks[i])
	for n := 2; n <= max && i+n <= len(toks); n++ {
		h = fnvAdd(fnvAdd(h, " "), toks[i+n-1])
		if !add(n, fnvMix(h)) {
			return
		}
	}
}

// canonicalNumber is a number token's canonical form ("98.70" → "98.7").
func canonicalNumber(t string) (string, bool) {
	if t == "" || !(t[0] >= '0' && t[0] <= '9' || t[0] == '-' || t[0] == '+') {
		return "", false
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil {
		return "", false
	}
	return strconv.FormatFloat(f, 'f', -1, 64), true
}

// sentenceParts are the pieces of a token that runs two sentences
// together ("www.our-company.com.They"): split where a period is
// followed by a capital letter.
func sentenceParts(text string) []string {
	var out []string
	for _, f := range strings.FieldsFunc(text, separator) {
		start := 0
		for i := 1; i+1 < len(f); i++ {
			if f[i] == '.' && f[i+1] >= 'A' && f[i+1] <= 'Z' {
				out = append(out, f[start:i])
				start = i + 1
			}
		}
		if start > 0 {
			out = append(out, f[start:])
		}
	}
	return out
}

// valueKeys are the value hashes text is indexed by.
func valueKeys(text string, keys map[uint64]bool) {
	toks, caps := tokensCase(text)
	add := func(k string) {
		if len(keys) < maxValueKeys {
			keys[valueHash(k)] = true
		}
	}
	for _, p := range sentenceParts(text) {
		if t := trimToken(strings.ToLower(p)); t != "" {
			add(t)
		}
	}
	if len(toks) > 0 {
		add(strings.Join(toks, " "))
	}
	// Single tokens first, then runs of tokens while the cap allows: an
	// address late in a long output is still found.
	for _, t := range toks {
		if len(keys) >= maxValueKeys {
			return
		}
		add(t)
		if n, ok := canonicalNumber(t); ok {
			add(n)
		}
	}
	full := false
	gram := func(from int) func(n int, h uint64) bool {
		return func(n int, h uint64) bool {
			if len(keys) >= maxValueKeys {
				full = true
				return false
			}
			if n >= from {
				keys[h] = true
			}
			return true
		}
	}
	for i := range toks {
		if gramHashes(toks, i, maxGram, gram(2)); full {
			return
		}
	}
	// A phrase that opens with a capital (a title, a name of many
	// words) is indexed up to maxPhrase tokens.
	for i := range toks {
		if !caps[i] {
			continue
		}
		if gramHashes(toks, i, maxPhrase, gram(maxGram+1)); full {
			return
		}
	}
}

// dataKeys indexes an output: each string leaf of a structured value as
// a text of its own, a number leaf in its canonical form, and the whole.
func dataKeys(data any, keys map[uint64]bool, depth int) {
	switch x := data.(type) {
	case string:
		valueKeys(x, keys)
	case float64:
		keys[valueHash(strconv.FormatFloat(x, 'f', -1, 64))] = true
	case []any:
		if depth > 32 {
			return
		}
		for _, el := range x {
			dataKeys(el, keys, depth+1)
		}
	case *value.Object:
		if depth > 32 {
			return
		}
		for _, k := range x.Keys {
			dataKeys(x.Values[k], keys, depth+1)
		}
	}
}

// valueKey is the key an argument's scalar value is looked up by; ok is
// false for a value with no token (an empty string, a bool, null).
func valueKey(data any) (uint64, bool) {
	switch x := data.(type) {
	case string:
		var k tokenHash
		eachToken(x, func(t string, _ bool) { k.add(t) })
		return k.key()
	case float64:
		return valueHash(strconv.FormatFloat(x, 'f', -1, 64)), true
	}
	return 0, false
}

// tokenHash is valueKey of a text built from its tokens as they come:
// valueHash of the tokens joined by spaces (fnvAdd runs over the bytes
// in order), with no list and no joined text; a lone number is hashed
// in its canonical spelling.
type tokenHash struct {
	h     uint64
	n     int
	first string
}

func (k *tokenHash) add(t string) {
	if k.n == 0 {
		k.h, k.first = valueSeed, t
	} else {
		k.h = fnvAdd(k.h, " ")
	}
	k.h = fnvAdd(k.h, t)
	k.n++
}

func (k *tokenHash) key() (uint64, bool) {
	if k.n == 0 {
		return 0, false
	}
	if k.n == 1 {
		if c, ok := canonicalNumber(k.first); ok {
			return valueHash(c), true
		}
	}
	return fnvMix(k.h), true
}

// keyOfTokens is valueKey of a text whose tokens are toks.
func keyOfTokens(toks []string) (uint64, bool) {
	var k tokenHash
	for _, t := range toks {
		k.add(t)
	}
	return k.key()
}

// addValues indexes what an event brought in (data: its text or its
// structured output) for origin i. Beyond half the fingerprint cap
// nothing more is indexed: a value not found is one no guard can vouch
// for (nor name as seen in third-party text: guards that refuse values
// only third-party text named must also require them known).
func (s *Session) addValues(data any, i int, lim Limits) {
	keys := map[uint64]bool{}
	dataKeys(data, keys, 0)
	if t, ok := data.(string); !ok || t == "" {
		if text := value.Text(data); text != "" {
			valueKeys(text, keys)
		}
	}
	// Values take at most half of the fingerprint budget: the other half
	// stays for the fingerprints of confidentiality-labelled outputs,
	// which past the cap would turn context-wide.
	if len(keys) == 0 || len(s.Prints)+len(keys) > lim.MaxPrints/2 {
		return
	}
	hs := make([]uint64, 0, len(keys))
	for h := range keys {
		hs = append(hs, h)
	}
	sort.Slice(hs, func(a, b int) bool { return hs[a] < hs[b] })
	for _, h := range hs {
		s.appendPrint(h, i)
	}
}

// seenOrigins are the origins whose text holds data as a whole value.
func (s *Session) seenOrigins(data any) []int {
	return s.appendSeen(nil, data)
}

// appendSeen appends to out the origins whose text holds data as a whole
// value that out does not hold yet (seenOrigins into a list of the
// caller's).
func (s *Session) appendSeen(out []int, data any) []int {
	if len(s.Prints) == 0 {
		// Nothing indexed: no key to compute.
		return out
	}
	k, ok := valueKey(data)
	if !ok {
		return out
	}
	return s.appendSeenKey(out, k)
}

// appendSeenKey is appendSeen of a value whose key is k.
func (s *Session) appendSeenKey(out []int, k uint64) []int {
	if len(s.Prints) == 0 {
		return out
	}
	s.buildIndex()
	for _, o := range s.index[k] {
		if o >= 0 && o < len(s.Origins) && !containsInt(out, o) {
			out = append(out, o)
		}
	}
	return out
}

func (s *Session) buildIndex() {
	if s.index == nil {
		s.index = make(map[uint64][]int, len(s.Prints))
		for _, p := range s.Prints {
			s.index[p.Hash] = append(s.index[p.Hash], p.Origin)
		}
	}
}

func containsInt(list []int, x int) bool {
	for _, y := range list {
		if y == x {
			return true
		}
	}
	return false
}

// SeenPrompt is the name `.mx.seenIn` gives the user's prompt.
const SeenPrompt = "prompt"

// seenAs is how `.mx.seenIn` names an origin: "prompt" for the user's
// prompt, the tool's name for a tool's output, else the event's kind.
func seenAs(o Origin) string {
	switch {
	case o.Event == PromptSubmit:
		return SeenPrompt
	case o.Tool != "":
		return o.Tool
	}
	return string(o.Event)
}

// argProv is the provenance of one argument value: its labels, the
// origins they came from, and where the value was seen.
type argProv struct {
	labels  []string
	origins []Origin
	seenIn  []string
	// foreign are the identifiers in a text value (links, addresses,
	// account numbers) that were seen only in texts with no trust label,
	// never in the prompt.
	foreign []string
}

// argVar builds the Variable of one argument value (or an element or
// field of one) with its labels: the context-wide labels; the taint and
// confidentiality labels of the outputs its text copies (fingerprints);
// and the labels of every text it was seen in as a whole value (exact
// provenance). Trust labels come from exact provenance only, and a list
// or object has a trust label only when every element has it, while its
// other labels are the union of its elements' (taint.IsTrust). A value
// seen in the user's prompt, or carrying a trust label, is not steered
// by what the agent read: it does not take the context-wide `untrusted`
// and `influenced`.
func (e *Engine) argVar(s *Session, ctx []string, ctxOrigins []Origin, data any, depth int) (*value.Variable, argProv) {
	var items []*value.Variable
	var provs []argProv
	var keys []string
	switch x := data.(type) {
	case []any:
		if depth < 16 {
			for _, el := range x {
				v, p := e.argVar(s, ctx, ctxOrigins, el, depth+1)
				items, provs = append(items, v), append(provs, p)
			}
		}
	case *value.Object:
		if depth < 16 {
			keys = x.Keys
			for _, k := range x.Keys {
				v, p := e.argVar(s, ctx, ctxOrigins, x.Values[k], depth+1)
				items, provs = append(items, v), append(provs, p)
			}
		}
	}
	var p argProv
	structured := items != nil || keys != nil
	if !structured {
		text := value.Text(data)
		cl, co := s.contentLabels(text)
		p.labels, p.origins = cl, co
		vouched := false
		// A text's tokens, once: its key and the tokens traced in it.
		var tb [16]string
		var toks []string
		var seen []int
		str, isText := data.(string)
		if isText {
			toks = appendTokens(tb[:0], str)
			if k, ok := keyOfTokens(toks); ok {
				seen = s.appendSeenKey(nil, k)
			}
		} else {
			seen = s.seenOrigins(data)
		}
		for _, i := range seen {
			o := s.Origins[i]
			p.labels = appendNew(p.labels, o.Labels...)
			if len(o.Labels) > 0 {
				p.origins = mergeOrigins(p.origins, []Origin{o})
			}
			name := seenAs(o)
			if !contains(p.seenIn, name) {
				p.seenIn = append(p.seenIn, name)
			}
			if isText && (name == SeenPrompt || hasTrust(o.Labels)) {
				vouched = true
			}
		}
		sort.Strings(p.seenIn)
		if isText {
			var distinct []int
			p.foreign, distinct = s.traceTokens(toks)
			for _, o := range distinct {
				// A distinctive token inside a text (a passport or card
				// number, an address) carries the taint labels of where
				// it was seen, as a copied fragment does.
				if ls := withoutTrust(s.Origins[o].Labels); len(ls) > 0 {
					p.labels = appendNew(p.labels, ls...)
					p.origins = mergeOrigins(p.origins, []Origin{s.Origins[o]})
				}
			}
		}
		if !vouched {
			p.labels = appendNew(append([]string(nil), ctx...), p.labels...)
			p.origins = mergeOrigins(append([]Origin(nil), ctxOrigins...), p.origins)
		}
	} else {
		// The container: taint labels of any element, trust labels of
		// every element, seen where every element was seen.
		var trust []string
		for i, ep := range provs {
			var t []string
			for _, l := range ep.labels {
				if taint.IsTrust(l) {
					t = append(t, l)
				} else {
					p.labels = appendNew(p.labels, l)
				}
			}
			p.origins = mergeOrigins(p.origins, ep.origins)
			if i == 0 {
				trust, p.seenIn = t, append([]string(nil), ep.seenIn...)
				continue
			}
			trust = intersect(trust, t)
			p.seenIn = intersect(p.seenIn, ep.seenIn)
		}
		p.labels = appendNew(p.labels, trust...)
		if len(provs) == 0 {
			p.labels = append([]string(nil), ctx...)
			p.origins = append([]Origin(nil), ctxOrigins...)
		}
	}
	var v *value.Variable
	switch {
	case keys != nil:
		r := value.NewRecord()
		for i, k := range keys {
			r.Set(k, items[i])
		}
		v = r.Variable()
	case items != nil:
		v = value.ListOf(items)
	default:
		v = &value.Variable{Data: data}
	}
	v.Data = data
	v.Security = descriptor(p.labels)
	v.Source = "agent"
	seen := make([]any, len(p.seenIn))
	for i, n := range p.seenIn {
		seen[i] = n
	}
	foreign := make([]any, len(p.foreign))
	for i, f := range p.foreign {
		foreign[i] = f
	}
	v.Meta = &value.Object{Keys: []string{"seenIn", "foreign"}, Values: map[string]any{"seenIn": seen, "foreign": foreign}}
	return v, p
}

func hasTrust(labels []string) bool {
	for _, l := range labels {
		if taint.IsTrust(l) {
			return true
		}
	}
	return false
}

func intersect(a, b []string) []string {
	var out []string
	for _, x := range a {
		if contains(b, x) {
			out = append(out, x)
		}
	}
	return out
}

// withoutTrust is labels without trust labels.
func withoutTrust(labels []string) []string {
	var out []string
	for _, l := range labels {
		if !taint.IsTrust(l) {
			out = append(out, l)
		}
	}
	return out
}

// trustOf is the trust labels among labels.
func trustOf(labels []string) []string {
	var out []string
	for _, l := range labels {
		if taint.IsTrust(l) {
			out = append(out, l)
		}
	}
	return out
}

// identifier reports a token that names something a message can send
// its reader to or money to: a link, an e-mail address, an account
// number (letters and at least eight digits).
func identifier(t string) bool {
	if strings.Contains(t, "://") || strings.HasPrefix(t, "www.") || strings.Contains(t, "@") && strings.Contains(t, ".") {
		return true
	}
	digits := 0
	for _, r := range t {
		if r >= '0' && r <= '9' {
			digits++
		}
	}
	return digits >= 8 && len(t) < 40 && t[0] >= 'a' && t[0] <= 'z'
}

// MaxPrompt bounds the prompt a session keeps for `@mx.session.prompt`.
const MaxPrompt = 8 << 10

// capPrompt is text cut to MaxPrompt bytes on a UTF-8 boundary.
func capPrompt(text string) string {
	if len(text) <= MaxPrompt {
		return text
	}
	cut := MaxPrompt
	for cut > 0 && !utf8Start(text[cut]) {
		cut--
	}
	return text[:cut]
}

// distinctive reports a token worth tracing inside a longer text: an
// identifier, or six characters or more with a digit in them (a
// passport, card or reference number).
func distinctive(t string) bool {
	if identifier(t) {
		return true
	}
	return len(t) >= 6 && strings.ContainsAny(t, "0123456789")
}

// traceTokens looks each of a text's tokens (toks) up once. foreign are
// its identifiers that the session saw only in texts with no trust
// label, never in the prompt: a link a message's body carries that only
// an e-mail's body held (`.mx.foreign`). distinct are the origins in
// which its distinctive tokens were seen, when it has several tokens.
func (s *Session) traceTokens(toks []string) (foreign []string, distinct []int) {
	var sb [8]int
	for _, t := range toks {
		ident := identifier(t)
		traced := len(toks) >= 2 && distinctive(t)
		if !ident && !traced {
			continue
		}
		seen := s.appendSeenKey(sb[:0], tokenKey(t))
		if traced {
			for _, o := range seen {
				if !containsInt(distinct, o) {
					distinct = append(distinct, o)
				}
			}
		}
		if !ident || len(seen) == 0 || contains(foreign, t) {
			continue
		}
		vouched := false
		for _, i := range seen {
			o := s.Origins[i]
			vouched = vouched || o.Event == PromptSubmit || hasTrust(o.Labels)
		}
		if !vouched {
			foreign = append(foreign, t)
		}
	}
	return foreign, distinct
}

// tokenKey is valueKey of a text that is the one token t: a token is
// its own only token.
func tokenKey(t string) uint64 {
	k, _ := keyOfTokens([]string{t})
	return k
}
