package js

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/guardrun/guardrun/interp/code"
)

// The JS runtime costs milliseconds to create; a runner that has run no
// block must not have made one.
func TestJSRuntimeStartsOnlyForJS(t *testing.T) {
	r := newRunner(code.JSConfig{OutputLimit: 1 << 20}).(*runner)
	require.Nil(t, r.rt)
	v, err := r.Run(context.Background(), code.JSRequest{Lang: "js", Src: "return 1 + 1", Timeout: code.DefaultTimeout})
	require.NoError(t, err)
	require.Equal(t, float64(2), v)
	require.NotNil(t, r.rt)
}
