package code

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Without a registered engine a JS block fails closed, with an error a
// caller can recognise and a hint naming the import.
func TestRunJSWithoutEngine(t *testing.T) {
	require.False(t, HasJS(), "the code package's tests must not link a JS engine")
	e := NewEngine(Options{})
	for _, run := range []func(context.Context, string, []Binding) (any, error){e.RunJS, e.RunNode} {
		v, err := run(context.Background(), "return 1", nil)
		require.Nil(t, v)
		require.ErrorIs(t, err, ErrNotLinked)
		var ce *Error
		require.True(t, errors.As(err, &ce))
		require.Contains(t, ce.Message, "without the JavaScript engine")
		require.Contains(t, ce.Hint, JSImport)
	}
	require.Equal(t, "js", errOf(e.RunJS(context.Background(), "", nil)).Lang)
	require.Equal(t, "node", errOf(e.RunNode(context.Background(), "", nil)).Lang)
}

func errOf(_ any, err error) *Error {
	var ce *Error
	errors.As(err, &ce)
	return ce
}

// fakeRunner records what the Engine hands a registered engine.
type fakeRunner struct {
	cfg  JSConfig
	reqs []JSRequest
	shad [][]ShadowFunc
}

func (f *fakeRunner) Run(_ context.Context, req JSRequest) (any, error) {
	f.reqs = append(f.reqs, req)
	f.shad = append(f.shad, req.Shadows())
	return req.Src, nil
}

func TestRegisteredEngineIsMadeOnFirstJSBlock(t *testing.T) {
	var made []*fakeRunner
	RegisterJS(func(cfg JSConfig) JSRunner {
		f := &fakeRunner{cfg: cfg}
		made = append(made, f)
		return f
	})
	t.Cleanup(func() { jsFactory.Store(nil) })

	e := NewEngine(Options{MemoryLimit: 7 << 20, OutputLimit: 99})
	_, err := e.RunShell(context.Background(), ShellRequest{Lang: "sh", Script: "true"})
	require.NoError(t, err)
	require.Empty(t, made, "a shell command made the JS runner")

	e.SetShadow([]ShadowFunc{{Name: "a"}})
	e.CapTimeout(time.Second)
	v, err := e.RunNode(context.Background(), "src1", nil)
	require.NoError(t, err)
	require.Equal(t, "src1", v)
	e.SetShadow([]ShadowFunc{{Name: "b"}})
	_, err = e.RunJS(context.Background(), "src2", nil)
	require.NoError(t, err)

	require.Len(t, made, 1, "one runner per Engine")
	f := made[0]
	require.Equal(t, JSConfig{OutputLimit: 99, MemoryLimit: 7 << 20}, f.cfg)
	require.Equal(t, "node", f.reqs[0].Lang)
	require.Equal(t, time.Second, f.reqs[0].Timeout)
	require.Equal(t, [][]ShadowFunc{{{Name: "a"}}, {{Name: "b"}}}, f.shad, "each block defines the shadows queued before it, once")
}
