package check_test

import (
	"testing"

	"github.com/guardrun/guardrun/internal/teststate"
)

// TestMain keeps the private audit ledgers of the runs under test out of
// the user's state directory.
func TestMain(m *testing.M) { teststate.Main(m) }
