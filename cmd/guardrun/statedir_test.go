package main

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/guardrun/guardrun/internal/teststate"
)

// runArgsEnv makes the test binary be guardrun: TestMain runs run with
// the JSON-encoded arguments it holds, for the commands that replace
// their process (guardrun exec).
const runArgsEnv = "GUARDRUN_CMD_TEST_RUN"

// TestMain keeps the private audit ledgers of the runs under test out of
// the user's state directory.
func TestMain(m *testing.M) {
	if s := os.Getenv(runArgsEnv); s != "" {
		var args []string
		if err := json.Unmarshal([]byte(s), &args); err != nil {
			panic(err)
		}
		os.Exit(run(args, os.Stdout, os.Stderr))
	}
	teststate.Main(m)
}
