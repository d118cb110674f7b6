package js

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/guardrun/guardrun/interp/value"
)

func newObj(kv ...any) *value.Object {
	o := value.NewObject()
	for i := 0; i+1 < len(kv); i += 2 {
		o.Set(kv[i].(string), kv[i+1])
	}
	return o
}

func TestRunJSResults(t *testing.T) {
	tests := []struct {
		name   string
		src    string
		params []Binding
		want   string // value.ToJSON of the result (strings compared raw)
	}{
		{"return string", `return "hello world"`, nil, "hello world"},
		{"return number", `return 0.92;`, nil, "0.92"},
		{"integral stays number", `return 3`, nil, "3"},
		{"params", `return a + b`, []Binding{{Name: "a", Value: 2.0}, {Name: "b", Value: 3.0}}, "5"},
		{"string params", `return input.toUpperCase()`, []Binding{{Name: "input", Value: "abc"}}, "ABC"},
		{"implicit expression", `1 + 2`, nil, "3"},
		{"implicit string", `"x"`, nil, "x"},
		{"wrapped object", "({\n a: 1\n})", nil, `{"a":1}`},
		{"object order", `return {z: 1, a: [1, "b", null], m: {k: true}}`, nil, `{"z":1,"a":[1,"b",null],"m":{"k":true}}`},
		{"object param order", `return Object.keys(o).join(",")`, []Binding{{Name: "o", Value: newObj("z", 1.0, "a", 2.0)}}, "z,a"},
		{"array param", `return arr.map(x => x * 2)`, []Binding{{Name: "arr", Value: []any{1.0, 2.0}}}, "[2,4]"},
		{"nested array", `return [[1,2], [3,4]];`, nil, "[[1,2],[3,4]]"},
		{"undefined param", `return typeof u`, []Binding{{Name: "u", Value: value.Undefined{}}}, "undefined"},
		{"null param", `return n === null`, []Binding{{Name: "n", Value: nil}}, "true"},
		{"function dropped", `return {f: () => 1, k: 2}`, nil, `{"k":2}`},
		{"date to iso", `return new Date(0)`, nil, "1970-01-01T00:00:00.000Z"},
		{"async await", "const v = await Promise.resolve(41);\nreturn v + 1;", nil, "42"},
		{"returned promise", `return Promise.resolve("p")`, nil, "p"},
		{"setTimeout", "return await new Promise(r => setTimeout(() => r('late'), 10));", nil, "late"},
		{"invalid names skipped", `return typeof ok`, []Binding{{Name: "k-2", Value: "x"}, {Name: "ok", Value: "y"}}, "string"},
		{"duplicate binding last wins", `return v`, []Binding{{Name: "v", Value: "a"}, {Name: "v", Value: "b"}}, "b"},
		{"ambient mx", `return "v" + mx.try`, []Binding{{Name: "mx", Value: newObj("try", 2.0)}}, "v2"},
		{"returns null", `return null`, nil, "null"},
	}
	e := NewEngine(Options{})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := e.RunJS(context.Background(), tt.src, tt.params)
			require.NoError(t, err)
			if s, ok := got.(string); ok {
				require.Equal(t, tt.want, s)
				return
			}
			require.Equal(t, tt.want, value.ToJSON(got, false))
		})
	}
}

func TestRunJSNoReturnIsUndefined(t *testing.T) {
	e := NewEngine(Options{})
	got, err := e.RunJS(context.Background(), "const x = 1;\nx + 1;", nil)
	require.NoError(t, err)
	require.Equal(t, value.Undefined{}, got)
}

func TestRunJSConsoleCapture(t *testing.T) {
	var stdout, stderr bytes.Buffer
	e := NewEngine(Options{Stdout: &stdout, Stderr: &stderr})
	ctx := context.Background()

	got, err := e.RunJS(ctx, "const result = Number(a) + Number(b);\nconsole.log(result);", []Binding{{Name: "a", Value: 5.0}, {Name: "b", Value: 3.0}})
	require.NoError(t, err)
	require.Equal(t, "8", got)

	got, err = e.RunJS(ctx, "console.log('First');\nconsole.log('Second');\nconsole.log('Last');", nil)
	require.NoError(t, err)
	require.Equal(t, "First\nSecond\nLast", got)

	got, err = e.RunJS(ctx, "console.log('Hello', 'World', 123, {a: 1});", nil)
	require.NoError(t, err)
	require.Equal(t, "Hello World 123 {\n  \"a\": 1\n}", got)

	got, err = e.RunJS(ctx, "console.log('Calculating...');\nreturn 8;", nil)
	require.NoError(t, err)
	require.Equal(t, 8.0, got)

	got, err = e.RunJS(ctx, "console.error('to stderr');\nreturn 'ok';", nil)
	require.NoError(t, err)
	require.Equal(t, "ok", got)
	require.Equal(t, "to stderr\n", stderr.String())
	require.Contains(t, stdout.String(), "Calculating...\n")
	require.NotContains(t, stdout.String(), "to stderr")

	// A single-line console.log body is not turned into an expression.
	got, err = e.RunJS(ctx, "console.log(Number(a) + Number(b))", []Binding{{Name: "a", Value: 1.0}, {Name: "b", Value: 2.0}})
	require.NoError(t, err)
	require.Equal(t, "3", got)
}

func TestRunJSGlobalsPersist(t *testing.T) {
	e := NewEngine(Options{})
	src := "if (!global.testCounter) global.testCounter = 0;\nreturn ++global.testCounter;"
	for want := 1.0; want <= 3; want++ {
		got, err := e.RunJS(context.Background(), src, nil)
		require.NoError(t, err)
		require.Equal(t, want, got)
	}
	got, err := e.RunJS(context.Background(), "globalThis.__c = (globalThis.__c || 0) + 1;\nreturn { iteration: globalThis.__c, same: global === globalThis };", nil)
	require.NoError(t, err)
	require.Equal(t, `{"iteration":1,"same":true}`, value.ToJSON(got, false))

	other := NewEngine(Options{})
	got, err = other.RunJS(context.Background(), "return typeof global.testCounter", nil)
	require.NoError(t, err)
	require.Equal(t, "undefined", got)
}

func TestRunJSErrors(t *testing.T) {
	e := NewEngine(Options{})
	ctx := context.Background()
	tests := []struct {
		name    string
		src     string
		message string
		line    int
	}{
		{"throw error", `throw new Error("boom:" + input)`, "boom:seed", 1},
		{"throw later line", "const a = 1;\n\nthrow new TypeError('bad ' + a);", "bad 1", 3},
		{"throw string", `throw "plain"`, "plain", 0},
		{"reference error", "return missing + 1", "missing is not defined", 1},
		{"rejected", "await null;\nthrow new Error('async boom');", "async boom", 0},
		{"syntax", "return (;", "SyntaxError", 1},
		{"require", "const fs = require('fs');\nreturn 1;", "require is not available", 1},
		{"never settles", "return new Promise(() => {})", "never settled", 0},
		{"stack overflow", "function f() { return f() + 1 }\nreturn f()", "call stack", 0},
		{"cycle", "const o = {};\no.self = o;\nreturn o;", "cyclic", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := e.RunJS(ctx, tt.src, []Binding{{Name: "input", Value: "seed"}})
			require.Error(t, err)
			var ce *Error
			require.True(t, errors.As(err, &ce), "%T", err)
			require.Contains(t, ce.Message, tt.message)
			require.Equal(t, "js", ce.Lang)
			if tt.line > 0 {
				require.Equal(t, tt.line, ce.Line)
			}
		})
	}
	// The engine still works after failures.
	got, err := e.RunJS(ctx, "return 'alive'", nil)
	require.NoError(t, err)
	require.Equal(t, "alive", got)
}

func TestRunJSTimeout(t *testing.T) {
	e := NewEngine(Options{Timeout: 100 * time.Millisecond})
	start := time.Now()
	_, err := e.RunJS(context.Background(), "while (true) {}", nil)
	var ce *Error
	require.True(t, errors.As(err, &ce))
	require.True(t, ce.TimedOut)
	require.Contains(t, ce.Message, "js block timed out after 100ms")
	require.Less(t, time.Since(start), 5*time.Second)

	got, err := e.RunJS(context.Background(), "return 1", nil)
	require.NoError(t, err)
	require.Equal(t, 1.0, got)
}

func TestRunJSContextCancel(t *testing.T) {
	e := NewEngine(Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := e.RunJS(ctx, "while (true) {}", nil)
	var ce *Error
	require.True(t, errors.As(err, &ce))
	require.True(t, ce.Interrupted)

	_, err = e.RunJS(ctx, "return 1", nil)
	require.Error(t, err)
}

func TestRunNodeLang(t *testing.T) {
	e := NewEngine(Options{})
	got, err := e.RunNode(context.Background(), "return val", []Binding{{Name: "val", Value: "v"}})
	require.NoError(t, err)
	require.Equal(t, "v", got)
	_, err = e.RunNode(context.Background(), "require('os')", nil)
	var ce *Error
	require.True(t, errors.As(err, &ce))
	require.Equal(t, "node", ce.Lang)
}

func TestRunJSConsoleOutputLimit(t *testing.T) {
	e := NewEngine(Options{OutputLimit: 64})
	_, err := e.RunJS(context.Background(), "for (let i = 0; i < 100; i++) console.log('xxxxxxxxxx');", nil)
	require.Error(t, err)
	require.True(t, strings.Contains(err.Error(), "exceeded 64 bytes"))
}

func TestAddImplicitReturn(t *testing.T) {
	tests := map[string]string{
		"1 + 2":             "return (1 + 2)",
		"return 1":          "return 1",
		"a; b":              "a; b",
		"console.log(1)":    "console.log(1)",
		"({a: 1})":          "return ({a: 1})",
		"(a) + (b)":         "return ((a) + (b))",
		"x\ny":              "x\ny",
		"(\n { a: ')' }\n)": "return (\n { a: ')' }\n)",
		"   ":               "   ",
		"returnValue":       "returnValue",
		"(a)\n+ (b)":        "(a)\n+ (b)",
	}
	for in, want := range tests {
		require.Equal(t, want, addImplicitReturn(in), in)
	}
}

// A backtracking pattern (lookahead makes goja use regexp2) ran for
// minutes on 30 characters, past every timeout, and regexp2 stopping it
// reported "no match". It must end as an error, soon.
func TestRunJSRegexpBacktrackingStops(t *testing.T) {
	input := []Binding{{Name: "s", Value: strings.Repeat("a", 27) + "b"}}
	calls := []string{
		`/^(a+)+(?=\x00)/.test(s)`,
		`s.replace(/^(a+)+(?=\x00)/g, "x")`,
		`new RegExp("^(a+)+(?=\\x00)").exec(s)`,
	}
	e := NewEngine(Options{})
	for _, call := range calls {
		start := time.Now()
		got, err := e.RunJS(context.Background(), "return "+call, input)
		require.Error(t, err, "%s gave %v", call, got)
		require.Contains(t, err.Error(), "regular expression match took longer than 1s")
		require.Less(t, time.Since(start), 3*time.Second)
	}
	// A shorter block timeout wins (the match ends within the bound).
	e = NewEngine(Options{Timeout: 200 * time.Millisecond})
	start := time.Now()
	_, err := e.RunJS(context.Background(), "return "+calls[0], input)
	require.Error(t, err)
	require.Less(t, time.Since(start), 3*time.Second)
	// Ordinary lookaround still works, and exec cannot be swapped out.
	got, err := e.RunJS(context.Background(), `"use strict"; const ok = [/(?<=a)b/.test("ab"), "a,b".split(/(?=,)/).length];
		try { RegExp.prototype.exec = null } catch (e) { ok.push(e.name) }
		return ok.join(",")`, nil)
	require.NoError(t, err)
	require.Equal(t, "true,2,TypeError", got)
}
