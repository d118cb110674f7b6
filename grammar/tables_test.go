package grammar

import "testing"

// The token tables are built on first use; the scanner relies on
// symbolNames being their exact inverse and on a bare keyword being
// replayed as the Ident type the grammar expects.
func TestTokenTablesInverse(t *testing.T) {
	names := tokenNames()
	syms := symbolNames()
	if len(syms) != len(names) {
		t.Fatalf("symbolNames has %d entries, tokenNames %d: two names share a type", len(syms), len(names))
	}
	for name, typ := range names {
		if syms[typ] != name {
			t.Errorf("symbolNames()[%d] = %q, want %q", typ, syms[typ], name)
		}
	}
	if names["Ident"] != tIdent {
		t.Errorf(`tokenNames()["Ident"] = %d, want tIdent (%d)`, names["Ident"], tIdent)
	}
}

// Every opener the nesting tracker knows has a closer the error messages
// can name.
func TestCloserOf(t *testing.T) {
	for _, c := range []struct{ open, close string }{
		{"(", ")"}, {"CallOpen", ")"}, {"[", "]"}, {"IndexOpen", "]"}, {"{", "}"},
		{"TLParen", "TRParen"}, {"TLBrack", "TRBrack"}, {"DQOpen", "DQClose"},
		{"BTOpen", "BTClose"}, {"ColonOpen", "ColonClose"}, {"TripleOpen", "TripleClose"},
		{"CodeOpen", "CodeRBrace"}, {"PipeCode", "CodeRBrace"}, {"CodeLBrace", "CodeRBrace"},
		{"MOpen", "MClose"}, {")", ""}, {"Ident", ""}, {"", ""},
	} {
		if got := closerOf(c.open); got != c.close {
			t.Errorf("closerOf(%q) = %q, want %q", c.open, got, c.close)
		}
	}
}
