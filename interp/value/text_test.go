package value

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestText(t *testing.T) {
	tests := []struct {
		name string
		in   any
		want string
	}{
		{"string", "héllo", "héllo"},
		{"null", nil, "null"},
		{"undefined", Undefined{}, ""},
		{"true", true, "true"},
		{"false", false, "false"},
		{"int", 3.0, "3"},
		{"fraction", 0.95, "0.95"},
		{"negative", -12.5, "-12.5"},
		{"big", 1e21, "1e+21"},
		{"small", 1e-7, "1e-7"},
		{"nan", math.NaN(), "NaN"},
		{"array", arr("a", "b"), `["a","b"]`},
		{"object", obj("k", 1.0), `{"k":1}`},
		{"nested", obj("a", arr(1.0, obj("b", nil))), `{"a":[1,{"b":null}]}`},
		{"empty array", arr(), "[]"},
		{"callable", fn("f"), "@f"},
		{"go int", 7, "7"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, Text(tt.in))
		})
	}
}

func TestDisplay(t *testing.T) {
	tests := []struct {
		name string
		in   any
		want string
	}{
		{"plain string", "hello", "hello"},
		{"single element", arr("secret"), `["secret"]`},
		{"two elements", arr("secret", "src:cmd"), "[\n  \"secret\",\n  \"src:cmd\"\n]"},
		{"numbers", arr(1.0, 2.0, 3.0), "[\n  1,\n  2,\n  3\n]"},
		{"empty array", arr(), "[]"},
		{"empty object", NewObject(), "{}"},
		{"one key folds", obj("seed", 1.0), `{"seed": 1}`},
		{"one key string folds", obj("a", "b"), `{"a": "b"}`},
		{"one key nested stays", obj("a", obj("b", 1.0)), "{\n  \"a\": {\n    \"b\": 1\n  }\n}"},
		{"two keys", obj("status", "pass", "output", "ok"), "{\n  \"status\": \"pass\",\n  \"output\": \"ok\"\n}"},
		{"json string", `{"seed":1}`, `{"seed": 1}`},
		{"json array string", `["a","b"]`, "[\n  \"a\",\n  \"b\"\n]"},
		{"bad json string", `{nope`, `{nope`},
		{"array of one object", arr(obj("a", 1.0)), "[\n  {\n    \"a\": 1\n  }\n]"},
		{"long single element", arr("0123456789012345678901234567890123456789012345678901234567890"),
			"[\n  \"0123456789012345678901234567890123456789012345678901234567890\"\n]"},
		{"bool", true, "true"},
		{"null", nil, "null"},
		{"undefined", Undefined{}, ""},
		{"number", 42.0, "42"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, Display(tt.in))
		})
	}
}

func TestFormatNumber(t *testing.T) {
	tests := map[float64]string{
		0: "0", 1: "1", -1: "-1", 0.1: "0.1", 1.5e300: "1.5e+300", 123456789012: "123456789012",
		0.000001: "0.000001", math.Inf(1): "Infinity", math.Inf(-1): "-Infinity", 2.5e-10: "2.5e-10",
	}
	for in, want := range tests {
		require.Equal(t, want, FormatNumber(in), "%v", in)
	}
}
