package interp

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/guardrun/guardrun/interp/value"
)

// TestLineageRecorderOnlyWithExplain: without an Explain callback there
// is no recorder, so its hooks are not registered and the reads and file
// loads that would feed it stop at one nil check.
func TestLineageRecorderOnlyWithExplain(t *testing.T) {
	off := newInterp(context.Background(), Options{})
	defer off.close()
	require.Nil(t, off.rec)
	on := newInterp(context.Background(), Options{Explain: func(Explanation) {}})
	defer on.close()
	require.NotNil(t, on.rec)

	e := &env{in: off, sc: &scope{vars: map[string]*value.Variable{"x": value.New("v")}}}
	require.Zero(t, testing.AllocsPerRun(100, func() { e.lookup("x") }))
}
