package grammar

import "fmt"

// forbiddenShellOperator finds the first shell operator that mlld rejects
// in a cmd body: cmd { … } is one pipeline of simple commands, so chaining
// (&&, ||, ;), redirection (>, >>, <, >&, &>) and background (&) are parse
// errors there, outside quotes. It returns the operator's offset in body,
// or "" when there is none.
func forbiddenShellOperator(body string) (int, string) {
	for i := 0; i < len(body); i++ {
		c := body[i]
		next := byte(0)
		if i+1 < len(body) {
			next = body[i+1]
		}
		switch c {
		case '"', '\'':
			// Quoted text is an argument as written: mlld checks operators
			// only in unquoted words.
			for i++; i < len(body) && body[i] != c; i++ {
			}
		case '&':
			switch next {
			case '&':
				return i, "&&"
			case '>':
				return i, "&>"
			}
			return i, "&"
		case '|':
			if next == '|' {
				return i, "||"
			}
		case ';':
			return i, ";"
		case '>':
			switch next {
			case '>':
				return i, ">>"
			case '&':
				return i, ">&"
			}
			return i, ">"
		case '<':
			return i, "<"
		}
	}
	return 0, ""
}

func cmdOperatorMessage(op string) string {
	switch op {
	case "&&", "||":
		return fmt.Sprintf("Shell operator %s is not allowed in cmd { … }. Use separate run commands or when for control flow.", op)
	case ";":
		return "Shell operator semicolon (;) is not allowed in cmd { … }. Use separate run commands."
	case "&":
		return "Background execution (&) is not allowed in cmd { … }. All commands run synchronously."
	}
	return fmt.Sprintf("Shell redirection operator %s is not allowed in cmd { … }. Use output for file operations.", op)
}
