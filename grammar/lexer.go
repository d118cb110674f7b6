package grammar

import (
	"github.com/alecthomas/participle/v2/lexer"
)

// identPattern is an mlld identifier: a hyphen is part of the name only
// when an alphanumeric follows it, so `@a-@b` is two references.
const identPattern = `[A-Za-z_](?:[A-Za-z0-9_]|-[A-Za-z0-9])*`

// refPattern is an @reference head.
const refPattern = `@` + identPattern

// Code bodies are kept raw: quoted runs are single tokens so that braces
// inside JS strings and templates do not unbalance the block, and an
// unmatched quote degrades to plain text instead of swallowing the file.
const codeTextPattern = `"(?:\\[\s\S]|[^"\\\n])*"|'(?:\\[\s\S]|[^'\\\n])*'|` +
	"`(?:\\\\[\\s\\S]|[^`\\\\])*`" + `|[^{}"'` + "`" + `]+|["'` + "`]"

// templateStates are shared by the expression lexer and the command
// template lexer.
func templateStates() lexer.Rules {
	esc := lexer.Rule{Name: "Esc", Pattern: `\\[\s\S]`}
	atAt := lexer.Rule{Name: "AtAt", Pattern: `@@`}
	ref := lexer.Rule{Name: "TplRef", Pattern: refPattern, Action: lexer.Push("TRef")}
	loneAt := lexer.Rule{Name: "LoneAt", Pattern: `@`}
	return lexer.Rules{
		"DQ": {
			{Name: "DQClose", Pattern: `"`, Action: lexer.Pop()},
			esc, atAt, ref,
			// An alphanumeric right before @ makes it text (alice@example.com).
			{Name: "DQText", Pattern: `(?:[A-Za-z0-9]@|[^"@\\])+`},
			loneAt,
		},
		"BT": {
			{Name: "BTClose", Pattern: "`", Action: lexer.Pop()},
			esc, atAt, ref,
			{Name: "BTText", Pattern: "(?:[A-Za-z0-9]@|[^`@\\\\])+"},
			loneAt,
		},
		"Colon": {
			{Name: "ColonClose", Pattern: `::`, Action: lexer.Pop()},
			esc, atAt, ref,
			{Name: "ColonText", Pattern: `(?:[A-Za-z0-9]@|[^:@\\])+`},
			{Name: "ColonChar", Pattern: `:`},
			loneAt,
		},
		"Triple": {
			{Name: "TripleClose", Pattern: `:::`, Action: lexer.Pop()},
			{Name: "MOpen", Pattern: `\{\{`, Action: lexer.Push("Mustache")},
			{Name: "TripleText", Pattern: `[^:{]+`},
			{Name: "TripleChar", Pattern: `[:{]`},
		},
		"Mustache": {
			{Name: "MClose", Pattern: `\}\}`, Action: lexer.Pop()},
			{Name: "mws", Pattern: `[ \t]+`},
			{Name: "Ident", Pattern: identPattern},
			{Name: "MDot", Pattern: `\.`},
			{Name: "Bad", Pattern: `[\s\S]`},
		},
		// TRef follows an @name inside a template: field, index and call
		// accessors stay attached; anything else returns to the text.
		"TRef": {
			{Name: "TField", Pattern: `\.[A-Za-z0-9_]+(?:-[A-Za-z0-9]+)*`},
			{Name: "TLBrack", Pattern: `\[`, Action: lexer.Push("TBrack")},
			{Name: "TLParen", Pattern: `\(`, Action: lexer.Push("TParen")},
			{Name: "TFallback", Pattern: `\?\?`, Action: lexer.Push("TFB")},
			{Name: "TOmit", Pattern: `\?`},
			lexer.Return(),
		},
		"TBrack": {
			{Name: "TRBrack", Pattern: `\]`, Action: lexer.Pop()},
			{Name: "TLBrack", Pattern: `\[`, Action: lexer.Push("TBrack")},
			lexer.Include("Expr"),
		},
		"TParen": {
			{Name: "TRParen", Pattern: `\)`, Action: lexer.Pop()},
			{Name: "TLParen", Pattern: `\(`, Action: lexer.Push("TParen")},
			lexer.Include("Expr"),
		},
		"TFB": {
			{Name: "DQOpen", Pattern: `"`, Action: lexer.Push("DQ")},
			{Name: "SQString", Pattern: `'(?:\\[\s\S]|[^'\\])*'`},
			lexer.Return(),
		},
		// CmdRoot is the start state of the command-template lexer; the
		// expression lexer carries it too so both share token types.
		"CmdRoot": {
			{Name: "CmdEsc", Pattern: `\\@`},
			{Name: "AtAt", Pattern: `@@`},
			{Name: "TplRef", Pattern: refPattern, Action: lexer.Push("TRef")},
			{Name: "CmdText", Pattern: `(?:[A-Za-z0-9]@|[^@\\])+`},
			{Name: "CmdChar", Pattern: `\\`},
			{Name: "LoneAt", Pattern: `@`},
		},
		"Code": {
			{Name: "CodeLBrace", Pattern: `\{`, Action: lexer.Push("Code")},
			{Name: "CodeRBrace", Pattern: `\}`, Action: lexer.Pop()},
			{Name: "CodeText", Pattern: codeTextPattern},
		},
	}
}

// exprRules lex directive text. NL is kept (the span scanner needs it) and
// elided by the parser; ArmStar is a `*` that starts a line, which inside
// a when list is a wildcard arm and never a multiplication.
func exprRules() []lexer.Rule {
	return []lexer.Rule{
		{Name: "comment", Pattern: `(?:>>|<<)[^\n]*`},
		{Name: "ArmStar", Pattern: `\r?\n[ \t]*\*`},
		{Name: "NL", Pattern: `\r?\n`},
		{Name: "ws", Pattern: `[ \t\r]+`},
		// A bare allow/retry ends at the end of its line or at `;`, so the
		// next rule's condition is not taken as its value.
		{Name: "BareKw", Pattern: `(?:allow|retry)[ \t]*(?:;|\r?\n)`},
		{Name: "CodeOpen", Pattern: `(?:run[ \t]+)?(?:javascript|js|node|python|py|bash|sh|cmd)[ \t]*\{|run[ \t]*\{`, Action: lexer.Push("Code")},
		{Name: "PipeCode", Pattern: `\|[ \t]*\{`, Action: lexer.Push("Code")},
		{Name: "TripleOpen", Pattern: `:::`, Action: lexer.Push("Triple")},
		{Name: "ColonOpen", Pattern: `::`, Action: lexer.Push("Colon")},
		{Name: "BTOpen", Pattern: "`", Action: lexer.Push("BT")},
		{Name: "DQOpen", Pattern: `"`, Action: lexer.Push("DQ")},
		{Name: "SQString", Pattern: `'(?:\\[\s\S]|[^'\\])*'`},
		{Name: "BadQuote", Pattern: `'`},
		{Name: "FileLoad", Pattern: `<[^\s<>=@!'"][^\s<>]*>`},
		{Name: "Number", Pattern: `\d+(?:\.\d+)?`},
		{Name: "AtIdent", Pattern: refPattern},
		{Name: "Ident", Pattern: identPattern},
		{Name: "Op", Pattern: `\.\.\.|!~=|=>|==|!=|~=|<=|>=|&&|\|\||\?\?|\?\.|\+=`},
		{Name: "Punct", Pattern: `[\[\](){},;:.?!<>=|*/%+\-]`},
		{Name: "Bad", Pattern: `[\s\S]`},
	}
}

// exprLexer lexes directive spans.
var exprLexer = func() *lexer.StatefulDefinition {
	rules := templateStates()
	rules["Root"] = []lexer.Rule{lexer.Include("Expr")}
	rules["Expr"] = exprRules()
	return lexer.MustStateful(rules)
}()

// cmdLexer lexes the body of a cmd/run block as a command template: only
// @references (and `\@`, `@@`) are special; every other byte, backslashes
// included, is shell text.
var cmdLexer = func() *lexer.StatefulDefinition {
	rules := templateStates()
	rules["Expr"] = exprRules()
	rules["Root"] = []lexer.Rule{lexer.Include("CmdRoot")}
	return lexer.MustStateful(rules)
}()
