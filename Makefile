# guardrun developer targets. `make test` is what CI runs.

GO        ?= go
CASES     ?= ../shared/conformance/mlld/cases
FAIL_UNDER ?=
FUZZTIME  ?= 30s
GOTESTFLAGS ?= -timeout 5m

.PHONY: all build test vet fmt-check lint policies conformance agent-corpus bench bench-hook fuzz soundness e2e diff-mlld race

all: build test

build:
	$(GO) build ./...

test: fmt-check vet policies
	$(GO) test $(GOTESTFLAGS) ./...

# Decisions of different sessions run at once on one engine (each in its
# own evaluation of the prepared policies): the tests that decide from
# many goroutines, under the race detector. CI runs it.
race:
	$(GO) test -race -count=1 -run 'Concurrent|Parallel|Close|InFlight' ./agent ./rules ./interp . ./examples/toolrunner

vet:
	$(GO) vet ./...
	$(GO) vet -tags e2e ./e2e/...

fmt-check:
	@out="$$(gofmt -l .)"; if [ -n "$$out" ]; then \
		echo "gofmt needed on:"; echo "$$out"; exit 1; fi

lint: fmt-check vet policies

# The starter rules and the examples pass `guardrun check` and are in the
# layout `guardrun fmt` gives (policy test files, *.test.mld, are not
# scripts; examples/policy-tests/failing fail on purpose).
POLICIES = $(wildcard rules/*.guard) $(wildcard examples/*.mld examples/*.md) \
	$(filter-out %.test.mld,$(wildcard examples/policy-tests/*.guard examples/policy-tests/*.mld examples/policy-tests/cases/*/example.mld examples/policy-tests/cases/*/tools.mld))
policies:
	$(GO) run ./cmd/guardrun check $(POLICIES)
	$(GO) run ./cmd/guardrun fmt --check $(POLICIES)

conformance:
	@if [ -d "$(CASES)" ]; then \
		$(GO) run ./cmd/guardrun conform $(if $(FAIL_UNDER),--fail-under $(FAIL_UNDER)) $(CASES); \
	else \
		echo "conformance: $(CASES) not found, skipping"; \
	fi

# The agent corpus (../shared/agent-corpus): Claude Code hook cases of
# everyday work and attacks against the starter policy as `guardrun init`
# writes it; fails below 98% attacks blocked or 98% everyday work allowed.
AGENT_CORPUS ?= ../shared/agent-corpus
agent-corpus:
	@if [ ! -d "$(AGENT_CORPUS)" ]; then echo "agent-corpus: $(AGENT_CORPUS) not found"; exit 1; fi
	@bin=$$(mktemp -d) && $(GO) build -o "$$bin/guardrun" ./cmd/guardrun && $(GO) build -o "$$bin/guardrun-hook" ./cmd/guardrun-hook && \
		AGENT_CORPUS_QUIET=1 sh $(AGENT_CORPUS)/run.sh "$$bin/guardrun-hook" "$$bin/guardrun"; rc=$$?; rm -rf "$$bin"; exit $$rc

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

fuzz:
	$(GO) test -run '^$$' -fuzz '^FuzzParse$$' -fuzztime $(FUZZTIME) -fuzzminimizetime 2s ./grammar
	$(GO) test -run '^$$' -fuzz '^FuzzRun$$' -fuzztime $(FUZZTIME) -fuzzminimizetime 2s .
	$(GO) test -run '^$$' -fuzz '^FuzzFormat$$' -fuzztime $(FUZZTIME) -fuzzminimizetime 2s ./format
	$(GO) test -run '^$$' -fuzz '^FuzzClaude$$' -fuzztime $(FUZZTIME) -fuzzminimizetime 2s ./hook
	$(GO) test -run '^$$' -fuzz '^FuzzCodex$$' -fuzztime $(FUZZTIME) -fuzzminimizetime 2s ./hook
	$(GO) test -run '^$$' -fuzz '^FuzzGemini$$' -fuzztime $(FUZZTIME) -fuzzminimizetime 2s ./hook
	$(GO) test -run '^$$' -fuzz '^FuzzCursor$$' -fuzztime $(FUZZTIME) -fuzzminimizetime 2s ./hook

# Taint soundness property test over N random programs (issue 3). With -v
# the test prints the final figures line (programs, outputs checked,
# violations); on a violation it prints the seed, script and a minimised one.
N ?= 100000
soundness:
	$(GO) test -run '^TestTaintSoundness$$' -count=1 -timeout 0 -v . -soundness.n=$(N)

# Start-up cost of `guardrun hook` (issue 15): the built binary answering
# a PreToolUse Bash event with the starter policy, side by side with a bare
# Go hello binary; prints median wall time and peak RSS (N rounds).
HOOK_ROUNDS ?= 200
bench-hook:
	GUARDRUN_BENCH_HOOK=$(HOOK_ROUNDS) $(GO) test -count=1 -run '^TestStartupFigures$$' -v ./hook

# Real-agent end-to-end suite (issue 28): installs the pinned Claude Code,
# Gemini CLI and Codex CLI of e2e/versions.txt from npm into E2E_CACHE,
# then runs each against the scripted model server on localhost (see
# e2e/README.md). Fails, never skips, when a host cannot be installed.
E2E_CACHE ?= .cache/e2e
e2e:
	sh e2e/install.sh $(E2E_CACHE)
	@status=0; GUARDRUN_E2E_CACHE="$(abspath $(E2E_CACHE))" GUARDRUN_E2E_SUMMARY="$(abspath $(E2E_CACHE))/summary.txt" \
		$(GO) test -tags e2e -count=1 -timeout 12m ./e2e/... || status=$$?; \
		cat "$(E2E_CACHE)/summary.txt" 2>/dev/null; exit $$status

# Differential test against mlld 2.0.5 (issue 33; not part of `make test`).
# MLLD_REF is the reference command (../shared/tools/build-mlld-peer.sh
# MLLD_GIT SIG_GIT builds one, mlld-ref); MLLD_DOCS is mlld's docs/ folder
# (e.g. `git --git-dir=MLLD_GIT archive v2.0.5 docs | tar -x -C DIR`), or
# MLLD_GIT alone to extract it here. Prints the report; the minimized
# disagreements go to DIFF_SAVE.
MLLD_REF  ?= $(HOME)/.cache/mlld-peer/bin/mlld-ref
MLLD_DOCS ?=
MLLD_GIT  ?=
DIFF_N    ?= 2000
DIFF_SEED ?= 1
DIFF_SAVE ?= testdata/diffmlld
DIFF_FLAGS ?=
diff-mlld:
	@bin=$$(mktemp -d) && $(GO) build -o "$$bin/guardrun" ./cmd/guardrun && $(GO) build -o "$$bin/diffmlld" ./cmd/diffmlld && \
		docs="$(MLLD_DOCS)"; if [ -z "$$docs" ] && [ -n "$(MLLD_GIT)" ]; then \
			git --git-dir="$(MLLD_GIT)" archive v2.0.5 docs | tar -x -C "$$bin" && docs="$$bin/docs"; fi; \
		"$$bin/diffmlld" -ref "$(MLLD_REF)" -guardrun "$$bin/guardrun" -docs "$$docs" -n $(DIFF_N) -seed $(DIFF_SEED) \
			-save "$(DIFF_SAVE)" $(DIFF_FLAGS); rc=$$?; rm -rf "$$bin"; exit $$rc
