// Package e2e is guardrun's real-agent end-to-end suite: it runs pinned
// releases of Claude Code, Gemini CLI and Codex CLI, wired by `guardrun
// init`, against a scripted model server (package fakemodel) on
// localhost, and asserts what each host actually did with guardrun's
// answers: which commands ran, what the model was told, what reached a
// local collector. The tests carry the build tag e2e, so `make test`
// does not run them; `make e2e` installs the hosts and runs them. See
// README.md for the versions tested and the findings.
package e2e
