package value

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// deepButSmall is 150 nested empty arrays repeated wide enough that the
// indented JSON passes MaxString while the data stays a few MB.
func deepButSmall() any {
	p, err := ParseJSON(strings.Repeat("[", 150) + strings.Repeat("]", 150))
	if err != nil {
		panic(err)
	}
	w := make([]any, 40)
	for i := range w {
		w[i] = p
	}
	ww := make([]any, 40)
	for i := range ww {
		ww[i] = any(w)
	}
	www := make([]any, 40)
	for i := range www {
		www[i] = any(ww)
	}
	return www
}

func TestWritersRespectStringCap(t *testing.T) {
	data := deepButSmall()
	cases := []struct {
		name  string
		build func() string
	}{
		{"ToJSON indented", func() string { return ToJSON(data, true) }},
		{"Display", func() string { return Display(data) }},
		{"xml", func() string { return toXML(data) }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := CatchLimit(c.build)
			var le *LimitError
			require.True(t, errors.As(err, &le), "want a LimitError, got %d bytes, err %v", len(s), err)
			require.Contains(t, le.Message, "memory limit exceeded")
			require.Contains(t, le.Hint, "WithMemoryLimit")
		})
	}
}

func TestTransformsReportStringCap(t *testing.T) {
	data := deepButSmall()
	for _, name := range []string{"json", "xml", "pretty"} {
		_, ok, err := Transform(name, data, nil)
		require.True(t, ok)
		var le *LimitError
		require.True(t, errors.As(err, &le), "@%s: %v", name, err)
	}
}

func TestDisplayStopsWhenContextEnds(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	defer func() {
		r := recover()
		ie, ok := r.(*InterruptedError)
		require.True(t, ok, "want an InterruptedError panic, got %v", r)
		require.ErrorIs(t, ie, context.Canceled)
	}()
	DisplayContext(ctx, deepButSmall())
}

func TestParseJSONNesting(t *testing.T) {
	ok := strings.Repeat("[", MaxNesting) + strings.Repeat("]", MaxNesting)
	_, err := ParseJSON(ok)
	require.NoError(t, err)
	_, err = ParseLooseJSON(ok)
	require.NoError(t, err)
	deep := "[" + ok + "]"
	_, err = ParseJSON(deep)
	require.ErrorContains(t, err, "nested more than 200 deep")
	_, err = ParseLooseJSON(deep)
	require.ErrorContains(t, err, "nested more than 200 deep")
	obj := strings.Repeat(`{"a":`, MaxNesting+1) + "1" + strings.Repeat("}", MaxNesting+1)
	_, err = ParseJSON(obj)
	require.ErrorContains(t, err, "nested more than 200 deep")
}
