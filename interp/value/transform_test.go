package value

import (
	"errors"
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

func TestTransformErrorsCarryHints(t *testing.T) {
	tests := []struct {
		name, transformer string
		in                any
		message, hint     string
	}{
		{"json", "json", "{a:1}", "@json: invalid JSON", "check the input is valid JSON, or use @parse.loose for relaxed JSON"},
		{"parse", "parse", "[1,", "@parse: invalid JSON", "@parse.loose"},
		{"loose", "parse.loose", "{a: [1}", "@parse.loose: invalid JSON at offset", "brackets and quotes"},
		{"llm", "parse.llm", "no json here", "@parse.llm: no JSON found in the input", "fenced block"},
		{"csv", "csv", 3.0, "@csv: expected an array of objects or arrays, got number", "array of objects"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, ok, err := Transform(tt.transformer, tt.in, nil)
			require.True(t, ok)
			var ve *Error
			require.True(t, errors.As(err, &ve), "%T %v", err, err)
			require.Contains(t, ve.Message, tt.message)
			require.Contains(t, ve.Hint, tt.hint)
		})
	}
}

func TestParseLLMFindsJSONInProse(t *testing.T) {
	out, ok, err := Transform("parse.llm", "Sure! Here it is: {\"a\": \"}\", \"b\": [1, 2]} hope that's useful", nil)
	require.True(t, ok)
	require.NoError(t, err)
	require.Equal(t, `{"a":"}","b":[1,2]}`, ToJSON(out, false))
}
