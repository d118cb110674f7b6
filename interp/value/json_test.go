package value

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestToJSON(t *testing.T) {
	tests := []struct {
		name   string
		in     any
		indent bool
		want   string
	}{
		{"order kept", obj("z", 1.0, "a", 2.0), false, `{"z":1,"a":2}`},
		{"no html escape", "<a&b>", false, `"<a&b>"`},
		{"escapes", "q\"\\\n\t\x01", false, `"q\"\\\n\t\u0001"`},
		{"undefined dropped in object", obj("a", Undefined{}, "b", 1.0), false, `{"b":1}`},
		{"undefined null in array", arr(Undefined{}, fn("f")), false, `[null,null]`},
		{"nan is null", math.NaN(), false, "null"},
		{"top undefined", Undefined{}, false, ""},
		{"indent", obj("a", arr(1.0, 2.0), "b", NewObject(), "c", arr()), true,
			"{\n  \"a\": [\n    1,\n    2\n  ],\n  \"b\": {},\n  \"c\": []\n}"},
		{"unicode kept", "ü€", false, `"ü€"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, ToJSON(tt.in, tt.indent))
		})
	}
}

func TestParseJSON(t *testing.T) {
	v, err := ParseJSON(`{"b": [1, 2.5, "x", true, null], "a": {"c": {}}}`)
	require.NoError(t, err)
	o := v.(*Object)
	require.Equal(t, []string{"b", "a"}, o.Keys)
	require.Equal(t, []any{1.0, 2.5, "x", true, nil}, o.Values["b"])
	require.Equal(t, `{"b":[1,2.5,"x",true,null],"a":{"c":{}}}`, ToJSON(v, false))

	for _, bad := range []string{"", "{", `{"a":}`, "[1,]", "1 2", "{a:1}", `'x'`} {
		_, err := ParseJSON(bad)
		require.Error(t, err, bad)
	}
	v, err = ParseJSON(" 42 ")
	require.NoError(t, err)
	require.Equal(t, 42.0, v)
}

func TestParseLooseJSON(t *testing.T) {
	tests := []struct {
		in   string
		want string
	}{
		{`{a: 1, 'b': 'two', "c": [1, 2,],}`, `{"a":1,"b":"two","c":[1,2]}`},
		{"// c\n{x: /* y */ +3}", `{"x":3}`},
		{`['it\'s']`, `["it's"]`},
		{`{n: 0x10, neg: -.5}`, `{"n":16,"neg":-0.5}`},
	}
	for _, tt := range tests {
		v, err := ParseLooseJSON(tt.in)
		require.NoError(t, err, tt.in)
		require.Equal(t, tt.want, ToJSON(v, false))
	}
	for _, bad := range []string{"{a 1}", "[1 2]", "'open", "nope", "{a:1} x"} {
		_, err := ParseLooseJSON(bad)
		require.Error(t, err, bad)
	}
}

func TestFromGo(t *testing.T) {
	var raw any
	require.NoError(t, json.Unmarshal([]byte(`{"z":[1,"a"],"a":{"k":false}}`), &raw))
	require.Equal(t, `{"a":{"k":false},"z":[1,"a"]}`, ToJSON(FromGo(raw), false))
	require.Equal(t, 3.0, FromGo(3))
	require.Equal(t, []any{"x", "y"}, FromGo([]string{"x", "y"}))
	require.Equal(t, `{"b":2}`, ToJSON(FromGo(map[string]int{"b": 2}), false))
	require.Equal(t, Undefined{}, FromGo(Undefined{}))
}
