package value

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestTransform(t *testing.T) {
	tests := []struct {
		name string
		tr   string
		in   any
		want string // ToJSON of the output, or the string itself
	}{
		{"json parses string", "json", `{"name": "Ada", "value": 42}`, `{"name":"Ada","value":42}`},
		{"json of data is pretty text", "json", obj("name", "alice", "age", 30.0), "{\n  \"name\": \"alice\",\n  \"age\": 30\n}"},
		{"parse", "parse", `[1, 2]`, `[1,2]`},
		{"parse strict", "parse.strict", `[1]`, `[1]`},
		{"parse loose", "parse.loose", `{a: 'b',}`, `{"a":"b"}`},
		{"parse llm fence", "parse.llm", "Here:\n```json\n{\"ok\": true}\n```\nbye", `{"ok":true}`},
		{"parse llm inline", "parse.llm", `The answer is {"n": [1, 2]} ok`, `{"n":[1,2]}`},
		{"parse data passthrough", "parse", arr(1.0), `[1]`},
		{"trim", "trim", "  x  ", "x"},
		{"upper", "upper", "abc", "ABC"},
		{"lower", "lower", "ABC", "abc"},
		{"upper data", "upper", arr("a"), `["A"]`},
		{"pretty", "pretty", `{"a":[1]}`, "{\n  \"a\": [\n    1\n  ]\n}"},
		{"sort numbers", "sort", arr(10.0, 9.0, "b", "a"), `[9,10,"a","b"]`},
		{"sort keys", "sort", obj("b", 1.0, "a", 2.0), `{"a":2,"b":1}`},
		{"csv", "csv", arr(obj("a", 1.0, "b", "x,y"), obj("a", 2.0, "c", true)), "a,b,c\n1,\"x,y\",\n2,,true"},
		{"xml", "xml", obj("name", "a<b", "tags", arr("x")), "<NAME>a&lt;b</NAME>\n<TAGS>\n  <item>x</item>\n</TAGS>"},
		{"md", "md", "# x", "# x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, ok, err := Transform(tt.tr, tt.in, nil)
			require.True(t, ok)
			require.NoError(t, err)
			if s, isStr := out.(string); isStr {
				require.Equal(t, tt.want, s)
				return
			}
			require.Equal(t, tt.want, ToJSON(out, false))
		})
	}
}

func TestTransformErrors(t *testing.T) {
	_, ok, err := Transform("json", "not json", nil)
	require.True(t, ok)
	require.Error(t, err)
	_, ok, err = Transform("parse.llm", "no json here", nil)
	require.True(t, ok)
	require.Error(t, err)
	_, ok, err = Transform("csv", 3.0, nil)
	require.True(t, ok)
	require.Error(t, err)
	_, ok, err = Transform("nope", "x", nil)
	require.False(t, ok)
	require.NoError(t, err)
}
