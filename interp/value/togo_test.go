package value

import (
	"encoding/json"
	"math"
	"math/rand"
	"reflect"
	"strconv"
	"testing"
)

// randData builds random value data of every kind ToJSON writes,
// undefined and functions included.
func randData(r *rand.Rand, depth int) any {
	n := 9
	if depth > 3 {
		n = 6
	}
	switch r.Intn(n) {
	case 0:
		return nil
	case 1:
		return Undefined{}
	case 2:
		return r.Intn(2) == 0
	case 3:
		return []float64{0, -1.5, 3, 1e21, math.NaN(), math.Inf(1)}[r.Intn(6)]
	case 4:
		return []string{"", "a", "ü\n\"q\"", "<&>", "\u2028"}[r.Intn(5)]
	case 5:
		return testCallable{}
	case 6, 7:
		list := make([]any, r.Intn(4))
		for i := range list {
			list[i] = randData(r, depth+1)
		}
		return list
	default:
		o := NewObject()
		for i := r.Intn(4); i > 0; i-- {
			o.Set("k"+strconv.Itoa(r.Intn(5)), randData(r, depth+1))
		}
		return o
	}
}

type testCallable struct{}

func (testCallable) CallableName() string { return "f" }

// ToGo gives what the JSON text ToJSON writes reads back as, for random
// data of every kind; Same agrees with comparing those texts' readings.
func TestToGoReadsAsItsJSON(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for i := 0; i < 3000; i++ {
		d := randData(r, 0)
		got, ok := ToGo(d)
		text := ToJSON(d, false)
		if text == "" {
			if ok {
				t.Fatalf("%#v: JSON leaves it out, ToGo gave %#v", d, got)
			}
			continue
		}
		var want any
		if err := json.Unmarshal([]byte(text), &want); err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		if !ok || !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: ToGo gave %#v, the JSON reads %#v", text, got, want)
		}
		if !Same(d, d) {
			t.Fatalf("Same(%s, itself) is false", text)
		}
		e := randData(r, 0)
		if r.Intn(4) == 0 {
			e = d // the same data, more often than chance gives it
		}
		var a, b any
		json.Unmarshal([]byte(ToJSON(d, false)), &a)
		json.Unmarshal([]byte(ToJSON(e, false)), &b)
		sameJSON := ToJSON(e, false) != "" && reflect.DeepEqual(a, b)
		if Same(d, e) != sameJSON {
			t.Fatalf("Same(%s, %s) = %v", ToJSON(d, false), ToJSON(e, false), !sameJSON)
		}
		// Go forms (maps and slices as encoding/json decodes them) compare
		// as the data they hold.
		if !Same(d, got) || !Same(got, d) {
			t.Fatalf("Same(%s, its Go form %#v) is false", text, got)
		}
		if g, ok := ToGo(e); ok && Same(got, g) != sameJSON {
			t.Fatalf("Same of the Go forms of %s and %s = %v", text, ToJSON(e, false), !sameJSON)
		}
	}
}
