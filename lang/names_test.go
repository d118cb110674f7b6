package lang

import (
	"slices"
	"testing"
)

// The tables written out whole (a package-level literal needs no code at
// start-up, which every hook process pays) are what their parts make.
func TestTablesAreTheirParts(t *testing.T) {
	if want := append(slices.Clone(ReservedHelpers), "prefixWith", "tagValue"); !slices.Equal(GuardHelpers, want) {
		t.Errorf("GuardHelpers = %v, want %v", GuardHelpers, want)
	}
	want := append(append(slices.Clone(ValueMxShown), "keys", "values", "entries", "tools", "seenIn", "foreign"), FileMxFields...)
	if !slices.Equal(ValueMxFields, want) {
		t.Errorf("ValueMxFields = %v, want %v", ValueMxFields, want)
	}
	for _, b := range Builtins() {
		if !IsBuiltin(b) {
			t.Errorf("IsBuiltin(%q) is false", b)
		}
	}
	if IsBuiltin("mx") || IsBuiltin("opIs") {
		t.Error("IsBuiltin takes an ambient name or a guard helper for a builtin")
	}
}
