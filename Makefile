# guardrun developer targets. `make test` is what CI runs.

GO        ?= go
CASES     ?= ../shared/conformance/mlld/cases
FAIL_UNDER ?=
FUZZTIME  ?= 30s
GOTESTFLAGS ?= -timeout 5m

.PHONY: all build test serve-python bench-serve agentdojo-serve vet fmt-check lint policies conformance agent-corpus agentdojo bench bench-hook bench-exec bench-parallel fuzz soundness e2e diff-mlld race

all: build test

build:
	$(GO) build ./...

test: fmt-check vet policies serve-python
	$(GO) test $(GOTESTFLAGS) ./...

# The Python client of `guardrun serve` (examples/serve/python; python3
# and its standard library only) against a guardrun built here.
serve-python:
	@bin=$$(mktemp -d) && $(GO) build -o "$$bin/" ./cmd/guardrun ./cmd/guardrun-hook && \
		GUARDRUN="$$bin/guardrun" GUARDRUN_HOOK="$$bin/guardrun-hook" python3 examples/serve/python/test_guardrun_client.py; rc=$$?; rm -rf "$$bin"; exit $$rc

# A decision's latency from Python through `guardrun serve` (socket,
# stdio) beside a process per event (guardrun-hook generic, the
# `guardrun serve --client generic` shim): medians and p90 of
# SERVE_ROUNDS rounds of replay.py's quiet bench. Run it on an idle
# machine.
SERVE_ROUNDS ?= 1000
bench-serve:
	@bin=$$(mktemp -d) && $(GO) build -o "$$bin/" ./cmd/guardrun ./cmd/guardrun-hook && \
		GUARDRUN="$$bin/guardrun" GUARDRUN_HOOK="$$bin/guardrun-hook" python3 examples/serve/python/bench.py $(SERVE_ROUNDS); \
		rc=$$?; rm -rf "$$bin"; exit $$rc

# Decisions of different sessions run at once on one engine (each in its
# own evaluation of the prepared policies): the tests that decide from
# many goroutines, under the race detector. CI runs it. Then the
# internal packages twenty times, to catch a test that depends on a
# map's order or another thing that changes between runs.
race:
	$(GO) test -race -count=1 -run 'Concurrent|Parallel|Close|InFlight' ./agent ./rules ./interp . ./examples/toolrunner
	$(GO) test -race -count=1 -run 'Concurrent|Killed' ./serve
	$(GO) test -count=20 ./internal/...

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
POLICIES = $(wildcard rules/*.guard) $(wildcard examples/*.mld examples/*.md) examples/agentdojo/policy.guard \
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
# Then the decision log the hook wrote is replayed against the same policy
# (scripts/replay-corpus.sh): it fails on any changed decision.
AGENT_CORPUS ?= ../shared/agent-corpus
agent-corpus:
	@if [ ! -d "$(AGENT_CORPUS)" ]; then echo "agent-corpus: $(AGENT_CORPUS) not found"; exit 1; fi
	@bin=$$(mktemp -d) && $(GO) build -o "$$bin/guardrun" ./cmd/guardrun && $(GO) build -o "$$bin/guardrun-hook" ./cmd/guardrun-hook && \
		AGENT_CORPUS_QUIET=1 AGENT_CORPUS_KEEP=1 sh $(AGENT_CORPUS)/run.sh "$$bin/guardrun-hook" "$$bin/guardrun" 2>"$$bin/stderr"; rc=$$?; \
		grep -v '^kept: ' "$$bin/stderr" >&2; kept=$$(sed -n 's/^kept: //p' "$$bin/stderr"); \
		if [ -n "$$kept" ]; then sh scripts/replay-corpus.sh "$$bin/guardrun" "$$kept" || rc=1; rm -rf "$$kept"; fi; \
		rm -rf "$$bin"; exit $$rc

# AgentDojo's ground truth replayed through guardrun-hook generic under
# examples/agentdojo/policy.guard (../shared/agentdojo; about 4 minutes on
# an idle machine): utility benign and under attack, attacks stopped, ASR
# per suite. ADOJO_FLAGS are replay.py's (e.g. --suites banking).
AGENTDOJO ?= ../shared/agentdojo
ADOJO_FLAGS ?=
agentdojo:
	@if [ ! -d "$(AGENTDOJO)" ]; then echo "agentdojo: $(AGENTDOJO) not found"; exit 1; fi
	@bin=$$(mktemp -d) && $(GO) build -o "$$bin/guardrun" ./cmd/guardrun && $(GO) build -o "$$bin/guardrun-hook" ./cmd/guardrun-hook && \
		bash $(AGENTDOJO)/run.sh "$$bin/guardrun-hook" "$$bin/guardrun" -- $(ADOJO_FLAGS); rc=$$?; rm -rf "$$bin"; exit $$rc

# The same replay with each event handed to `guardrun serve` by the hook
# shim examples/serve/hook-via-serve.sh (`guardrun-hook serve --client`: a
# process per event still, as replay.py runs its hook, but no policy load
# or session start in it):
# the figures must be make agentdojo's; the hook timing line shows the
# difference.
agentdojo-serve:
	@if [ ! -d "$(AGENTDOJO)" ]; then echo "agentdojo: $(AGENTDOJO) not found"; exit 1; fi
	@bin=$$(mktemp -d) && $(GO) build -o "$$bin/" ./cmd/guardrun ./cmd/guardrun-hook && cp examples/serve/hook-via-serve.sh "$$bin/" && \
		bash $(AGENTDOJO)/run.sh "$$bin/hook-via-serve.sh" "$$bin/guardrun" -- $(ADOJO_FLAGS); rc=$$?; rm -rf "$$bin"; exit $$rc

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

# Each fuzz target for FUZZTIME, one at a time (FUZZFLAGS: e.g. -parallel 1).
# scripts/fuzz.sh counts go1.26's spurious end of a timed run ("context
# deadline exceeded" with no failing input, golang/go#75804) as a pass.
FUZZFLAGS ?=
fuzz:
	FUZZFLAGS="$(FUZZFLAGS)" GO=$(GO) sh scripts/fuzz.sh ./grammar FuzzParse $(FUZZTIME)
	FUZZFLAGS="$(FUZZFLAGS)" GO=$(GO) sh scripts/fuzz.sh . FuzzRun $(FUZZTIME)
	FUZZFLAGS="$(FUZZFLAGS)" GO=$(GO) sh scripts/fuzz.sh ./format FuzzFormat $(FUZZTIME)
	FUZZFLAGS="$(FUZZFLAGS)" GO=$(GO) sh scripts/fuzz.sh ./interp/policy FuzzExpandLine $(FUZZTIME)
	FUZZFLAGS="$(FUZZFLAGS)" GO=$(GO) sh scripts/fuzz.sh ./interp/policy FuzzCommandLineFacts $(FUZZTIME)
	FUZZFLAGS="$(FUZZFLAGS)" GO=$(GO) sh scripts/fuzz.sh ./interp/policy FuzzSplitCommands $(FUZZTIME)
	FUZZFLAGS="$(FUZZFLAGS)" GO=$(GO) sh scripts/fuzz.sh ./hook FuzzClaude $(FUZZTIME)
	FUZZFLAGS="$(FUZZFLAGS)" GO=$(GO) sh scripts/fuzz.sh ./hook FuzzCodex $(FUZZTIME)
	FUZZFLAGS="$(FUZZFLAGS)" GO=$(GO) sh scripts/fuzz.sh ./hook FuzzGemini $(FUZZTIME)
	FUZZFLAGS="$(FUZZFLAGS)" GO=$(GO) sh scripts/fuzz.sh ./hook FuzzCursor $(FUZZTIME)
	FUZZFLAGS="$(FUZZFLAGS)" GO=$(GO) sh scripts/fuzz.sh ./serve FuzzRequest $(FUZZTIME)
	FUZZFLAGS="$(FUZZFLAGS)" GO=$(GO) sh scripts/fuzz.sh ./agent FuzzRemoteCodeLine $(FUZZTIME)

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
# How decisions of different sessions scale with cores: BenchmarkDecideParallel
# with 1 and with 2 CPUs, each in a process of its own, ROUNDS times
# alternately; prints each run and the ratio of the medians.
ROUNDS ?= 5
bench-parallel:
	@bin=$$(mktemp -d) && $(GO) test -c -o "$$bin/agent.test" ./agent && cd agent && \
	for i in $$(seq $(ROUNDS)); do for c in 1 2; do \
		"$$bin/agent.test" -test.run '^$$' -test.bench '^BenchmarkDecideParallel$$' -test.benchtime 600000x -test.cpu $$c | grep '^Benchmark'; \
	done; done | tee "$$bin/out.txt" && \
	awk '{ if ($$1 ~ /-2$$/) two[n2++] = $$3; else one[n1++] = $$3 } \
		function med(a, n,   i, j, t) { for (i = 0; i < n; i++) for (j = i + 1; j < n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t } return a[int(n / 2)] } \
		END { printf "median ns/op: 1 CPU %d, 2 CPUs %d, speed-up %.2fx\n", med(one, n1), med(two, n2), med(one, n1) / med(two, n2) }' "$$bin/out.txt"; \
	rc=$$?; rm -rf "$$bin"; exit $$rc

bench-hook:
	GUARDRUN_BENCH_HOOK=$(HOOK_ROUNDS) $(GO) test -count=1 -run '^TestStartupFigures$$' -v ./hook

# Start-up of `guardrun exec -- true` beside a bare `bash -c true`, both
# timed in one run, alternating (docs/security-model.md).
EXEC_ROUNDS ?= 200x
bench-exec:
	$(GO) build -o .cache/bench-exec/ ./cmd/guardrun ./cmd/guardrun-hook
	for b in guardrun guardrun-hook; do echo "== $$b exec"; \
		GUARDRUN_BIN=$(CURDIR)/.cache/bench-exec/$$b $(GO) test -count=1 -run '^$$' -bench '^BenchmarkExecStartup$$' -benchtime $(EXEC_ROUNDS) ./cmd/guardrun || exit 1; done

# Real-agent end-to-end suite (issue 28): installs the pinned Claude Code,
# Gemini CLI and Codex CLI of e2e/versions.txt from npm into E2E_CACHE,
# then runs each against the scripted model server on localhost (see
# e2e/README.md). Fails, never skips, when a host cannot be installed.
E2E_CACHE ?= .cache/e2e
e2e:
	sh e2e/install.sh $(E2E_CACHE)
	@status=0; GUARDRUN_E2E_CACHE="$(abspath $(E2E_CACHE))" GUARDRUN_E2E_SUMMARY="$(abspath $(E2E_CACHE))/summary.txt" \
		$(GO) test -tags e2e -count=1 -timeout 20m ./e2e/... || status=$$?; \
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
