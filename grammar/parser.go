package grammar

import (
	"fmt"
	"sync"

	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"
)

// The participle parsers are built once, on first use; building them
// compiles every lexer pattern and reflects over the parse tree.
var (
	buildOnce  sync.Once
	spanParser *participle.Parser[span]
	cmdParser  *participle.Parser[cmdTemplate]
	buildErr   error
)

func parsers() error {
	buildOnce.Do(func() {
		spanParser, buildErr = participle.Build[span](
			participle.Lexer(exprLexer),
			participle.Elide("NL"),
			participle.UseLookahead(participle.MaxLookahead),
		)
		if buildErr != nil {
			return
		}
		cmdParser, buildErr = participle.Build[cmdTemplate](
			participle.Lexer(cmdLexer),
			participle.UseLookahead(participle.MaxLookahead),
		)
	})
	return buildErr
}

// parseSpanText runs participle over one directive span. A panic inside
// participle (its grammar checks are assertions) becomes an error rather
// than taking the process down.
func parseSpanText(text string) (tree *span, err error) {
	if err := parsers(); err != nil {
		return nil, err
	}
	defer func() {
		if r := recover(); r != nil {
			tree, err = nil, fmt.Errorf("internal parser error: %v", r)
		}
	}()
	return spanParser.ParseString("", text)
}

// tokenLexer replays tokens already produced by the span scanner.
type tokenLexer struct {
	toks []lexer.Token
	i    int
}

func (t *tokenLexer) Next() (lexer.Token, error) {
	if t.i >= len(t.toks) {
		return t.toks[len(t.toks)-1], nil
	}
	tok := t.toks[t.i]
	t.i++
	return tok, nil
}

var nlType = exprLexer.Symbols()["NL"]

// parseSpanTokens parses a span from the scanner's tokens, which must end
// with EOF.
func parseSpanTokens(toks []lexer.Token) (tree *span, err error) {
	if err := parsers(); err != nil {
		return nil, err
	}
	defer func() {
		if r := recover(); r != nil {
			tree, err = nil, fmt.Errorf("internal parser error: %v", r)
		}
	}()
	peek, err := lexer.Upgrade(&tokenLexer{toks: toks}, nlType)
	if err != nil {
		return nil, err
	}
	return spanParser.ParseFromLexer(peek)
}

func parseCmdText(text string) (tree *cmdTemplate, err error) {
	if err := parsers(); err != nil {
		return nil, err
	}
	defer func() {
		if r := recover(); r != nil {
			tree, err = nil, fmt.Errorf("internal parser error: %v", r)
		}
	}()
	return cmdParser.ParseString("", text)
}
