package interp_test

// The tests run scripts with js and node blocks and token counts: link
// the engines, as the guardrun command does.
import (
	_ "github.com/guardrun/guardrun/js"
	_ "github.com/guardrun/guardrun/tokens"
)
