package code

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestFormatBytes(t *testing.T) {
	require.Equal(t, "512 MiB", formatBytes(DefaultMemoryLimit))
	require.Equal(t, "2 GiB", formatBytes(2<<30))
	require.Equal(t, "3 KiB", formatBytes(3<<10))
	require.Equal(t, "1000 bytes", formatBytes(1000))
}
