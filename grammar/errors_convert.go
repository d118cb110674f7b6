package grammar

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/alecthomas/participle/v2"
	"github.com/guardrun/guardrun/ast"
)

var spaceLabelsRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(var|exe)[ \t]+(?:[A-Za-z_][\w:-]*[ \t]*,[ \t]*)*[A-Za-z_][\w:-]*[ \t]+[A-Za-z_!]`)
})

const exeExamples = "Invalid exe syntax. Examples:\n" +
	"  exe @echo(msg) = cmd {echo @msg}\n" +
	"  exe @greet(name) = `Hello @name`\n" +
	"  exe @add(a, b) = js { return a + b }\n" +
	"  exe @check(x) = when [ @x => \"yes\"; * => \"no\" ]\n" +
	"  exe @msg() = \"a string value\""

// precheck reports errors that participle would only describe vaguely.
func precheck(src *source, start int, text string) error {
	if m := spaceLabelsRe().FindStringSubmatch(text); m != nil {
		if m[1] == "var" {
			return &Error{Pos: src.posAt(start), Message: "Invalid var syntax. Expected: var @name = value", Found: firstLine(text), Hint: "separate labels with commas: var secret,pii @name = value"}
		}
		return &Error{Pos: src.posAt(start), Message: exeExamples, Found: firstLine(text), Hint: "separate labels with commas: exe net:w,tool:w @name() = …"}
	}
	return nil
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return firstWords(s)
}

// unclosedNames is the message for an opener of kind left open, if it has
// its own.
func unclosedNames(kind string) (string, bool) {
	switch kind {
	case "DQOpen":
		return "Unterminated double-quoted string", true
	case "BTOpen":
		return "Unterminated backtick template", true
	case "ColonOpen":
		return "Unterminated :: template", true
	case "TripleOpen":
		return "Unterminated ::: template", true
	case "CodeOpen", "PipeCode", "CodeLBrace":
		return "Unbalanced braces in code block", true
	case "MOpen":
		return "Unterminated {{ interpolation", true
	case "TLParen":
		return "Unclosed '(' in template reference", true
	case "TLBrack":
		return "Unclosed '[' in template reference", true
	}
	return "", false
}

// convertParseError turns a participle error on the span starting at base
// into a positioned *Error.
func convertParseError(src *source, base int, text string, res scanResult, err error) *Error {
	if res.unclosed != nil {
		u := res.unclosed
		msg, ok := unclosedNames(u.kind)
		hint := "close it before the end of the file"
		if !ok {
			opener := u.kind
			switch opener {
			case "IndexOpen":
				opener = "["
			case "CallOpen":
				opener = "("
			}
			msg = fmt.Sprintf("Unclosed %q: no matching %q before the end of the file", opener, closerOf(u.kind))
			hint = "add the missing " + closerOf(u.kind)
		}
		if strings.HasPrefix(text, "guard") && u.kind == "[" {
			msg = "Unterminated guard block: missing ']'"
		}
		return &Error{Pos: src.posAt(u.offset), Message: msg, Found: u.value, Hint: hint}
	}
	var deep *nestingError
	if errors.As(err, &deep) {
		return &Error{Pos: src.posAt(base + deep.offset), Message: deep.msg, Found: deep.found, Hint: nestingHint}
	}
	var ierr *InternalError
	if errors.As(err, &ierr) {
		return &Error{Pos: src.posAt(base), Message: ierr.Error(), Hint: internalHint, Cause: ierr}
	}
	var perr participle.Error
	if !errors.As(err, &perr) {
		return &Error{Pos: src.posAt(base), Message: err.Error(), Hint: "check the directive syntax"}
	}
	off := base + perr.Position().Offset
	found := ""
	var ute *participle.UnexpectedTokenError
	if errors.As(err, &ute) {
		found = ute.Unexpected.Value
		if ute.Unexpected.EOF() {
			found = ""
		}
	}
	msg := "Syntax error: " + participleWords().Replace(perr.Message())
	hint := hintFor(text)
	switch {
	case strings.HasPrefix(found, "'"):
		msg = "Unterminated single-quoted string"
	case found == "," && strings.HasPrefix(strings.TrimLeft(text, "/"), "when"):
		hint = "separate when arms with a newline or ;, not a comma"
	}
	return &Error{Pos: src.posAt(off), Message: msg, Found: found, Hint: hint}
}

// participleWords turns participle's grammar vocabulary into the words a
// script author uses.
var participleWords = sync.OnceValue(func() *strings.Replacer {
	return strings.NewReplacer(
		`unexpected token "<EOF>"`, "unexpected end of input",
		"(expected Expr)", "(expected a value)",
		"(expected Ident)", "(expected a name)",
	)
})

func hintFor(text string) string {
	kw := keywordRe().FindString(text)
	switch kw {
	case "var":
		return "expected: var [labels] @name = value"
	case "exe":
		return "expected: exe [labels] @name(params) = body"
	case "show":
		return "expected: show <value>"
	case "run":
		return "expected: run cmd {…}, run js {…} or run @exe(args)"
	case "when":
		return "expected: when [ condition => action … ] or when condition => action"
	case "guard":
		return "expected: guard [@name] before|after|always <label|op:x> = when [ … ]"
	case "for":
		return "expected: for @item in <collection> => action"
	case "import":
		return `expected: import { @a, @b } from "./module.mld"`
	case "output":
		return `expected: output <value> to "file" | stdout | stderr`
	}
	return "check the syntax near this position"
}

func posErr(p ast.Pos, msg, found, hint string) *Error {
	return &Error{Pos: p, Message: msg, Found: found, Hint: hint}
}
