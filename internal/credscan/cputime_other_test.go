//go:build !unix

package credscan

import "time"

// cpuTime is not measured off Unix.
func cpuTime() time.Duration { return 0 }
