# kvcheck developer targets. `make test` is what CI runs (.ci/run).
GO ?= go

.PHONY: all build test check lint bench

all: build test

build:
	$(GO) build ./...

# test: formatting, vet, and every test (the model-checking engine's race
# test included).
test: lint
	$(GO) test ./...
	$(GO) test -race -run Parallel ./model/

# check: the main job and CI gate: every built-in scenario as the real code
# behaves and with each of its fixes, against the verdict each variant is
# expected to give. It runs the built binary, not go run, which turns every
# failing exit status into 1; make itself reports any failure as 2, so the
# recipe says kvcheck's own status first (0 every verdict as expected, 1 one
# differs, 2 bad usage, 3 incomplete, 130 interrupted). CHECK_FLAGS adds
# flags, e.g. make check CHECK_FLAGS='--expect my-expectations.txt'.
KVCHECK ?= ./kvcheck
CHECK_FLAGS ?=
.PHONY: kvcheck
kvcheck:
	$(GO) build -o $(KVCHECK) ./cmd/kvcheck

check: kvcheck
	@$(KVCHECK) check $(CHECK_FLAGS) || { status=$$?; \
		echo "make check: $(KVCHECK) check exited with status $$status (1 a verdict differs, 2 bad usage, 3 incomplete, 130 interrupted)"; \
		exit $$status; }

# sweep-profiles: every default sweep's verdict profile (every configuration of every variant)
# against cmd/kvcheck/testdata/sweep-profiles-all.txt; not in CI (see docs/sweep.md#verdict-profiles
# for how long it takes). pin-profiles re-pins that file and the subset TestPinnedSweepProfiles
# checks in make test (cmd/kvcheck/testdata/sweep-profiles.txt); read the diff before committing.
PROFILES_ALL ?= cmd/kvcheck/testdata/sweep-profiles-all.txt
.PHONY: sweep-profiles pin-profiles
sweep-profiles:
	KVCHECK_SWEEP_ALL=1 $(GO) test ./cmd/kvcheck -run '^TestPinnedSweepProfilesAll$$' -count=1 -timeout 60m

pin-profiles: kvcheck
	$(KVCHECK) sweep --triage=false --write-profile $(PROFILES_ALL) --rewrite
	KVCHECK_REWRITE=1 $(GO) test ./cmd/kvcheck -run '^TestPinnedSweepProfiles$$' -count=1

lint:
	@unformatted=$$(gofmt -l .); if [ -n "$$unformatted" ]; then \
		echo "gofmt needed on:"; echo "$$unformatted"; \
		echo "reproduce: gofmt -l ."; exit 1; fi
	$(GO) vet ./...

# bench: throughput of the engine and the benchmark model (not run in CI).
bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

# bench-liveness: the checker on every scenario variant with and without
# the liveness analysis, side by side (docs/liveness.md; not in CI).
.PHONY: bench-liveness
bench-liveness:
	$(GO) test ./spec/ -run '^$$' -bench '^BenchmarkLivenessCost$$' -benchtime 5x | awk '/ns\/op/ { n = $$1; sub(/-[0-9]+$$/, "", n); k = split(n, p, "/"); v = p[2] "/" p[3]; if (p[4] == "safety") s[v] = $$3; else printf "%-60s safety %10.2f ms  liveness %10.2f ms  x%.2f\n", v, s[v] / 1e6, $$3 / 1e6, $$3 / s[v] }'

# fuzz-ci: bounded go test -fuzz runs of each fuzz target against the
# variants the exhaustive checker finds fixed (FuzzVariants) and the pool
# benchmark model (FuzzPoolBench), about 15 s each here, then the parallel
# walkers under the race detector. .ci/run calls it after make test. A crash
# is written to fuzz/testdata/fuzz/<Target>/ and fails the run; see
# fuzz/fuzz_test.go. The budgets are execution counts, not durations: a
# duration-based -fuzztime can fail with "context deadline exceeded" and no
# crash in Go 1.26 (go.dev/issue/75804, fixed in Go 1.27).
FUZZ_VARIANTS_EXECS ?= 50000x
FUZZ_POOL_EXECS ?= 150000x
.PHONY: fuzz-ci compare
fuzz-ci:
	$(GO) test ./fuzz/ -run '^$$' -fuzz '^FuzzVariants$$' -fuzztime $(FUZZ_VARIANTS_EXECS) -fuzzminimizetime 1s
	$(GO) test ./fuzz/ -run '^$$' -fuzz '^FuzzPoolBench$$' -fuzztime $(FUZZ_POOL_EXECS) -fuzzminimizetime 1s
	$(GO) test -race -run 'Reproducible|Budgets' ./fuzz/

# compare: time to the crash and trace length of exhaustive search, kvcheck
# fuzz, rapid and go test -fuzz on the seed scenarios, then the walks'
# coverage and throughput on the pool model (Markdown tables; not in CI).
compare:
	$(GO) run ./fuzz/compare

# bench-spin: kvcheck against SPIN (exact, -DHC4, bitstate) on the pool
# benchmark model and its Promela twin model/poolbench/pool.pml, alternating
# in one run, medians of BENCH_ROUNDS rounds (not in CI; needs spin and gcc).
BENCH_ROUNDS ?= 5
.PHONY: bench-spin bench-scale
bench-spin:
	$(GO) run ./cmd/benchspin -rounds $(BENCH_ROUNDS)

# bench-scale: adp-dummy-leak scaled from 2 ranks x 4 requests to 3 x 8,
# states, time, states per CPU second and peak bytes per state of each (not
# in CI; BENCH_SIZES and BENCH_LIMIT narrow or widen it).
# BENCH_LAYOUT=symmetric gives every rank the same requests, and
# BENCH_SYMMETRY=off,on checks each size without and with symmetry
# reduction (docs/engine.md, "Symmetry reduction"), BENCH_POR=off,on
# without and with the partial-order reduction ("Rank-aware partial-order
# reduction"). Then the 4-rank disaggregated deployment BENCH_DEPLOYMENT
# under its fix with both reductions, BENCH_WORKERS_ROUNDS alternated runs
# of BENCH_WORKERS_SIZE with 1 and 2 workers, and BENCH_SWEEP's default sweep,
# and each figure next to issue 24's target (docs/engine.md, "Measured
# against the targets"). Empty BENCH_DEPLOYMENT or BENCH_SWEEP, or
# BENCH_WORKERS_ROUNDS=0, leave them out, e.g.
#   make bench-scale BENCH_SIZES=3x5 BENCH_SYMMETRY=off BENCH_POR=off BENCH_DEPLOYMENT= BENCH_SWEEP= BENCH_WORKERS_ROUNDS=0
BENCH_SIZES ?= 2x4,2x5,2x6,3x4,3x5,3x6,3x7,3x8
BENCH_LIMIT ?= 10m
BENCH_LAYOUT ?= modulo
BENCH_SYMMETRY ?= off,on
BENCH_POR ?= off,on
BENCH_DEPLOYMENT ?= cmd/benchscale/deepseek-adp4-disagg.yaml
BENCH_WORKERS_ROUNDS ?= 7
BENCH_WORKERS_SIZE ?= 3x5
BENCH_SWEEP ?= draft-admission
bench-scale:
	$(GO) run ./cmd/benchscale -sizes $(BENCH_SIZES) -limit $(BENCH_LIMIT) -layout $(BENCH_LAYOUT) -symmetry $(BENCH_SYMMETRY) -por $(BENCH_POR) \
		-deployment '$(BENCH_DEPLOYMENT)' -workers-rounds $(BENCH_WORKERS_ROUNDS) -workers-size $(BENCH_WORKERS_SIZE) -sweep '$(BENCH_SWEEP)'

# mutate: mutation testing of spec/ and model/ with their own unit tests
# (github.com/go-gremlins/gremlins, fetched from the Go module proxy; not in
# CI). For each package it prints the surviving (LIVED), timed-out and
# not-covered mutants and the summary (tests run uncached, -count=1, so the
# timeouts gremlins derives from the coverage run are real): test efficacy =
# killed / (killed + lived), mutator coverage = mutants some test reaches.
# KVCHECK_MUTATE=1 skips the slow random-walk test (spec/robust_test.go).
# A full run of spec/ takes hours on a busy 2-core machine; narrow it to
# some of a package's files (its subpackages are then left out) and keep
# the JSON report while iterating:
#   make mutate MUTATE_PKGS=./spec MUTATE_FILES='cache.go pool.go' MUTATE_OUT=/tmp/m
# (writes /tmp/m-spec.json). Run it from a checkout you do not edit
# meanwhile (git worktree add --detach). Reviewed survivors and the measured scores:
# docs/soundness.md, "Mutation testing".
GREMLINS ?= $(GO) run github.com/go-gremlins/gremlins/cmd/gremlins@v0.6.0
MUTATE_PKGS ?= ./spec ./model
MUTATE_FILES ?=
MUTATE_OUT ?=
MUTATE_FLAGS ?= --workers 1 --test-cpu 1 --timeout-coefficient 4
.PHONY: mutate
mutate:
	@for pkg in $(MUTATE_PKGS); do \
		excludes=""; out=""; \
		if [ -n "$(MUTATE_FILES)" ]; then \
			excludes="-E /"; \
			for f in $$pkg/*.go; do \
				base=$$(basename $$f); keep=no; \
				for want in $(MUTATE_FILES); do [ "$$base" = "$$want" ] && keep=yes; done; \
				[ $$keep = no ] && excludes="$$excludes -E ^$$(echo $$base | sed 's/[.]/[.]/g')\$$"; \
			done; \
		fi; \
		[ -n "$(MUTATE_OUT)" ] && out="-o $(MUTATE_OUT)-$$(basename $$pkg).json"; \
		echo "== mutation testing $$pkg $(MUTATE_FILES)"; \
		GOFLAGS=-count=1 KVCHECK_MUTATE=1 $(GREMLINS) unleash $(MUTATE_FLAGS) -S ltc $$out $$excludes $$pkg || exit 1; \
	done

# mutate-checker: the checker's own mutation score (not in CI): each
# plausible bug of cmd/mutatechecker/mutants.txt is planted in a copy of
# the repository, kvcheck is built there, and its answers (check --json of
# every built-in variant; every scenario's default sweep, --json --no-cache
# without triage, each variant's whole JSON object minus timing fields; the
# conformance corpus through lin) are compared with the unmutated
# baseline: a mutant is killed when any answer differs. Score = killed /
# non-equivalent (docs/soundness.md, "The checker's mutation score").
# MUTANTS= selects ids; MUTATE_CHECKER_FLAGS adds flags: -stop-at-first
# skips the sweeps of a mutant check or lin already kill, -gotest also runs
# go test ./spec per mutant, -workers 1 on a busy machine, -sweep '...'
# replaces the sweep command (e.g. to add the verdict profiles' flag).
# Measured (shared 2-core machine, -stop-at-first, 2 workers): the whole
# list of 41 in 20 min 40 s (baseline 2-5 min, 12-90 s per mutant check or
# lin kills, 3-6 min per mutant that reaches the sweeps); the score is in
# docs/soundness.md.
MUTANTS ?=
MUTATE_CHECKER_FLAGS ?=
.PHONY: mutate-checker
mutate-checker:
	$(GO) run ./cmd/mutatechecker -ids '$(MUTANTS)' $(MUTATE_CHECKER_FLAGS)

# triage-docs: after a spec change, regenerate the repository's transcripts
# (counterexamples/testdata: every built-in scenario's counterexamples;
# counterexamples/testdata/sweep: the smallest counterexamples of the default
# sweeps the README and docs/ describe) and then every triage block of
# the README and docs/ from them (kvcheck triage --docs; docs/triage.md).
# TestTriageDocsInStep fails until this has run. Review the diff. It runs go
# run, so the transcripts' banners name `go run ./cmd/kvcheck`; go run turns
# every failing status into 1, which a sweep with a violation exits with, so
# a failed step shows in its message and in the last step, which needs every
# transcript the docs name.
SWEEP_OUT ?= counterexamples/testdata/sweep
TRIAGE_DOCS ?= README.md $(wildcard docs/*.md)
RUN_KVCHECK ?= $(GO) run ./cmd/kvcheck
.PHONY: triage-docs
triage-docs:
	$(RUN_KVCHECK) check --out counterexamples/testdata --rewrite
	-$(RUN_KVCHECK) sweep --scenario draft-admission --out $(SWEEP_OUT) --rewrite > /dev/null
	-$(RUN_KVCHECK) sweep --scenario adp-dummy-leak --out $(SWEEP_OUT) --rewrite > /dev/null
	-$(RUN_KVCHECK) sweep --scenario adp-dummy-leak --fix free-unpaired-mirror --liveness=false --out $(SWEEP_OUT) --rewrite > /dev/null
	-$(RUN_KVCHECK) sweep --scenario adp-dummy-leak --fix joint-admission --fix free-unpaired-mirror --liveness=false --out $(SWEEP_OUT) --rewrite > /dev/null
	-$(RUN_KVCHECK) sweep --scenario pp-history-capacity --fix none --out $(SWEEP_OUT) --rewrite > /dev/null
	-$(RUN_KVCHECK) sweep --scenario pp-history-capacity --fix none --invariant no-crash-on-refusal --out $(SWEEP_OUT) --rewrite > /dev/null
	$(RUN_KVCHECK) triage $(addprefix --docs ,$(TRIAGE_DOCS))

# history-bug-template: issue 23's measure of "one declaration per
# concept". In a scratch copy of the repository (its tracked files as they
# are in this checkout) it adds the synthetic historical bug of
# cmd/historybug (docs/history-bugs.md, "Adding one"), regenerates what a
# new bug regenerates (transcripts, pins, the triage block, the scenario
# table row) with the commands the walkthrough gives, checks that the bug
# gives its counterexample and its fix closes it, runs the tests of the
# packages it touches and of spec/configtext (whose round trip reads every
# scenario's configuration), and counts the files git status shows
# touched: at most 8 (not in CI: a few minutes; TestTemplateApplies is the
# cheap test).
HISTORY_BUG_TESTS ?= ./spec/ ./spec/scenario/ ./spec/configtext/ ./counterexamples/ ./cmd/kvcheck/ ./cmd/internal/triage/
.PHONY: history-bug-template
history-bug-template:
	@set -e; tmp=$$(mktemp -d); echo "scratch copy: $$tmp"; \
	git ls-files -z | tar --null --ignore-failed-read -T - -cf - 2>/dev/null | tar -xf - -C $$tmp; \
	cd $$tmp; git init -q; git add -A; git -c user.name=historybug -c user.email=historybug@localhost commit -qm base; \
	touch .historybug-scratch; \
	$(GO) run ./cmd/historybug -apply .; gofmt -w spec; \
	$(GO) build -o kvcheck ./cmd/kvcheck; \
	./kvcheck check --scenario synthetic-send-raise --out counterexamples/testdata --rewrite; \
	$(GO) test ./spec/ -run '^TestScenarioPins$$' -update-pins > /dev/null; \
	$(GO) test ./spec/ -run '^TestCoverageNotLost$$' -update-coverage > /dev/null; \
	$(GO) run ./cmd/historybug -row .; \
	./kvcheck triage --docs docs/history-bugs.md; \
	./kvcheck check --scenario synthetic-send-raise | head -4; \
	$(GO) test $(HISTORY_BUG_TESTS); \
	$(GO) run ./cmd/historybug -count .
