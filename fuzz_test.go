package guardrun

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// FuzzRun compiles and runs arbitrary input in both modes with code
// disabled. Any error is fine; a recovered panic (Error.Internal) or a run
// that outlives its deadline by far is not.
func FuzzRun(f *testing.F) {
	for _, s := range []string{
		"/var @x = \"a\"\n/show @x\n",
		"var @x = [1, {a: 2}]\nshow @x.1.a\n",
		"/exe @f(a) = `<@a>`\n/show @f(\"x\") | @upper\n",
		"/when @x == 1 => show \"y\"\n",
		"/for @i in [1,2] => show @i\n",
		"/guard @g before secret = when [ * => deny \"no\" ]\n/var secret @s = \"k\"\n/show @s\n",
		"/var secret @s = \"k\"\n/guard @g before secret = when [ @input.length > 5 => ask `Show @input\\?`\n * => deny `no @input, @mx.op.type @nope` ]\n/show @s\n",
		"/show `unterminated\n",
		"/var @x = {{{\n",
		"/exe @f(a) = `<@a>`\n/hook @h before @f = [ => @input ]\n/hook after op:exe = when [ * => show @mx.hooks.errors ]\n/show @f(\"x\")\n",
	} {
		f.Add([]byte(s))
	}
	if paths, err := filepath.Glob("examples/*"); err == nil {
		for _, p := range paths {
			if b, err := os.ReadFile(p); err == nil {
				f.Add(b)
			}
		}
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, src []byte) {
		for _, mode := range []Mode{Markdown, Strict} {
			prg, err := Compile("fuzz.md", src, WithMode(mode))
			failOnInternal(t, err)
			if err != nil {
				continue
			}
			ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
			start := time.Now()
			_, err = prg.Run(ctx, WithoutCode(), WithDir(dir), WithOutputLimit(1<<16))
			cancel()
			failOnInternal(t, err)
			if d := time.Since(start); d > 30*time.Second {
				t.Fatalf("run ignored its deadline: took %s", d)
			}
		}
	})
}

func failOnInternal(t *testing.T, err error) {
	t.Helper()
	var e *Error
	if errors.As(err, &e) && e.Internal() {
		t.Fatalf("%s\n%v", e.Message, e.Unwrap())
	}
}

// FuzzLimits builds scripts from size-amplifying steps (repeat, doubling
// templates, arrays of references, join, JSON/XML rendering, deep JSON
// text, padding, replaceAll, show, JS allocations) chosen by the input,
// and runs them under a small memory budget and a short deadline. Every
// run must end by itself, soon, with at most a positioned error: no
// internal error, no fatal out-of-memory (which would kill the fuzzer).
func FuzzLimits(f *testing.F) {
	for _, seed := range []struct {
		ops []byte
		n   uint32
	}{
		{[]byte{0, 1, 1, 1, 1, 1, 1, 7}, 1 << 20},
		{[]byte{0, 2, 2, 2, 4, 7}, 4096},
		{[]byte{8, 7, 6, 5}, 30000},
		{[]byte{0, 2, 3, 9, 10}, 1 << 16},
		{[]byte{11, 12, 13, 14, 15}, 600000000},
		{[]byte{0, 16, 7}, 100000},
	} {
		f.Add(seed.ops, seed.n)
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, ops []byte, n uint32) {
		if len(ops) > 64 {
			ops = ops[:64]
		}
		src := limitsScript(ops, n)
		prg, err := Compile("limits.mld", []byte(src), WithMode(Strict))
		failOnInternal(t, err)
		if err != nil {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
		defer cancel()
		start := time.Now()
		_, err = prg.Run(ctx, WithDir(dir), WithMemoryLimit(64<<20), WithCommandTimeout(500*time.Millisecond))
		failOnInternal(t, err)
		// Far above the 500 ms deadline: a loaded machine (CI beside
		// other work) must not trip it, a run that ignores its deadline
		// (minutes, or never) still does.
		if d := time.Since(start); d > 30*time.Second {
			t.Fatalf("run ignored its deadline: took %s\n%s", d, src)
		}
	})
}

// limitsExes are the JS helpers of limitsScript.
const limitsExes = `exe @jsJSON(x, n) = js { try { return JSON.stringify([new Array(n), x], null, 2) } catch (e) { return String(e) } }
exe @jsDouble(x, n) = js { try { let s = x; for (let i = 0; i < n; i++) s += s; return s } catch (e) { return String(e) } }
`

// limitsScript turns fuzz input into a strict-mode script: each op byte
// defines @vI from earlier variables of a fitting kind (chosen by the
// following bytes) or shows one; n scales counts. JS steps catch their own
// exceptions so that a refused allocation does not end the script.
func limitsScript(ops []byte, n uint32) string {
	var b strings.Builder
	b.WriteString("var @v0 = \"xy\"\nvar @l0 = [\"x\", \"y\"]\n" + limitsExes)
	strs, arrs := []string{"@v0"}, []string{"@l0"}
	count := strconv.FormatUint(uint64(n), 10)
	depth := int(n % 4096)
	pick := func(from []string, i, k int) string {
		return from[int(ops[(i+k)%len(ops)])%len(from)]
	}
	for i, op := range ops {
		a, c := pick(strs, i, 1), pick(strs, i, 2)
		l := pick(arrs, i, 3)
		v := "@v" + strconv.Itoa(i+1)
		isArr := false
		switch op % 18 {
		case 0:
			fmt.Fprintf(&b, "var %s = %s.repeat(%s)\n", v, a, count)
		case 1:
			fmt.Fprintf(&b, "var %s = `%s%s`\n", v, a, c)
		case 2:
			v, isArr = "@l"+strconv.Itoa(i+1), true
			fmt.Fprintf(&b, "var %s = [%s, %s, %s, %s]\n", v, a, c, l, l)
		case 3:
			fmt.Fprintf(&b, "var %s = %s.join(%s)\n", v, l, c)
		case 4:
			fmt.Fprintf(&b, "var %s = %s | @json\n", v, l)
		case 5:
			fmt.Fprintf(&b, "var %s = %s | @xml\n", v, l)
		case 6:
			fmt.Fprintf(&b, "var %s = `@%s` | @parse\n", v, l[1:])
		case 7:
			fmt.Fprintf(&b, "show %s\nshow %s\n", a, l)
			continue
		case 8:
			fmt.Fprintf(&b, "var %s = \"%s%s\"\n", v, strings.Repeat("[", depth), strings.Repeat("]", depth))
		case 9:
			fmt.Fprintf(&b, "var %s = %s.padEnd(%s, %s)\n", v, a, count, c)
		case 10:
			fmt.Fprintf(&b, "var %s = %s.replaceAll(\"x\", %s)\n", v, a, c)
		case 11:
			fmt.Fprintf(&b, "var %s = js { try { return \"ab\".repeat(%s) } catch (e) { return String(e) } }\n", v, count)
		case 12:
			fmt.Fprintf(&b, "var %s = js { try { return new Array(%s).fill(\"ab\").join(\",\") } catch (e) { return String(e) } }\n", v, count)
		case 13:
			fmt.Fprintf(&b, "var %s = js { try { return String(new (Object.getPrototypeOf(Float64Array))(%s).length) } catch (e) { return String(e) } }\n", v, count)
		case 14:
			fmt.Fprintf(&b, "var %s = @jsJSON(%s, %s)\n", v, a, count)
		case 15:
			fmt.Fprintf(&b, "var %s = @jsDouble(%s, %d)\n", v, a, n%40)
		case 16:
			fmt.Fprintf(&b, "var %s = ::\n/for @i in %s\n@i%s\n/end\n::\n", v, l, a)
		case 17:
			fmt.Fprintf(&b, "var %s = js { try { const a = new Float64Array({length: %s}); return String(a.length) } catch (e) { return String(e) } }\n", v, count)
		}
		if isArr {
			arrs = append(arrs, v)
		} else {
			strs = append(strs, v)
		}
	}
	return b.String()
}
