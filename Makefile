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

# check: the main job, every built-in scenario as the real code behaves and
# with its fixes. Exits 1 because the real code has the seed bugs.
check:
	$(GO) run ./cmd/kvcheck check

lint:
	@unformatted=$$(gofmt -l .); if [ -n "$$unformatted" ]; then \
		echo "gofmt needed on:"; echo "$$unformatted"; \
		echo "reproduce: gofmt -l ."; exit 1; fi
	$(GO) vet ./...

# bench: throughput of the engine and the benchmark model (not run in CI).
bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...
