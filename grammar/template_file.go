package grammar

import (
	"strings"

	"github.com/guardrun/guardrun/ast"
)

// ParseTemplate parses the text of an external template file: a .att
// file reads like the inside of a :: template (@variables, <file>
// references, /for … /end loops), a .mtt file (mustache) like the inside
// of a ::: template ({{variables}} only).
func ParseTemplate(file string, src []byte, mustache bool) (*ast.StringLit, error) {
	delim := "::"
	if mustache {
		delim = ":::"
	}
	// The text becomes the value of a one-line strict script; the
	// template's own line breaks are kept (the formatting newlines the
	// delimiters would trim are added around it).
	const head = "var @t = "
	text := head + delim + "\n" + strings.TrimRight(string(src), "\n") + "\n" + delim
	doc, err := Parse(file, []byte(text), ast.Strict)
	if err != nil {
		return nil, err
	}
	for _, n := range doc.Body {
		if v, ok := n.(*ast.VarDirective); ok {
			if lit, ok := v.Value.(*ast.StringLit); ok {
				return lit, nil
			}
		}
	}
	return nil, &Error{Pos: ast.Pos{File: file, Line: 1, Col: 1}, Message: "template file is not a template", Hint: "check the file's delimiters"}
}
