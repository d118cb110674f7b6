package agent

import (
	"encoding/json"
	"math"
	"math/rand"
	"testing"
	"time"
)

// TestLogRecordMatchesJSON: AppendJSON writes exactly what encoding/json
// marshals, for random records with hostile strings (HTML characters,
// control characters, invalid UTF-8, line separators) and nested inputs.
func TestLogRecordMatchesJSON(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	pieces := []string{"", "a", "<script>", "&amp;", "\"q\"", `back\slash`, "\n\r\t\b\f", "\x00\x01\x1f\x7f", "é", "日本",
		"\u2028\u2029", "\xff\xfe", "a\xc3", "😀", "[masked]", "rm -rf /", "{\"k\":1}"}
	str := func() string {
		s := ""
		for n := rng.Intn(4); n > 0; n-- {
			s += pieces[rng.Intn(len(pieces))]
		}
		return s
	}
	floats := []float64{0, 1, -1, 0.5, 1e-7, 1e21, 123456789, 1.5e300, -2.5e-9, 120000, math.SmallestNonzeroFloat64, math.MaxFloat64, 1e20, 1e-6}
	var value func(depth int) any
	value = func(depth int) any {
		switch k := rng.Intn(8); {
		case k == 0:
			return nil
		case k == 1:
			return rng.Intn(2) == 0
		case k == 2:
			return floats[rng.Intn(len(floats))]
		case k == 3 && depth < 3:
			m := map[string]any{}
			for n := rng.Intn(4); n > 0; n-- {
				m[str()] = value(depth + 1)
			}
			return m
		case k == 4 && depth < 3:
			var a []any
			if rng.Intn(5) > 0 {
				a = []any{}
			}
			for n := rng.Intn(4); n > 0; n-- {
				a = append(a, value(depth+1))
			}
			return a
		case k == 5:
			return json.Number("12.50")
		}
		return str()
	}
	for i := 0; i < 3000; i++ {
		r := &Record{Time: time.Unix(rng.Int63n(4e9), rng.Int63n(1e9)).In(time.FixedZone("", 3600*(rng.Intn(5)-2))),
			Session: str(), Event: Kind(str()), Tool: str(), CallID: str(), Decision: Outcome(rng.Intn(7)), Reason: str(),
			Rule: str(), Guard: str(), Class: Class(str()), LatencyUS: rng.Int63n(1e7) - 10, PolicyHash: str()}
		if rng.Intn(2) == 0 {
			for n := rng.Intn(3); n >= 0; n-- {
				r.Labels = append(r.Labels, str())
			}
		}
		if rng.Intn(3) == 0 {
			r.Approval = &Approval{Question: str(), Answer: Reply(str()), Reused: str()}
		}
		for n := rng.Intn(3); n > 0; n-- {
			b := Brought{Labels: []string{str()}, Context: rng.Intn(2) == 0, Why: str(), File: str()}
			for k := rng.Intn(3); k > 0; k-- {
				b.Prints = append(b.Prints, rng.Uint64())
			}
			r.Brought = append(r.Brought, b)
		}
		if rng.Intn(3) > 0 {
			r.Input = map[string]any{}
			for n := rng.Intn(5); n > 0; n-- {
				r.Input[str()] = value(0)
			}
		}
		want, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		if got := r.AppendJSON(nil); string(got) != string(want) {
			t.Fatalf("record %d:\n got %s\nwant %s", i, got, want)
		}
	}
}
