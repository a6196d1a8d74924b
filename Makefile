# tessera — run `make help` for the targets. CI runs `make ci`.
SHELL := /bin/bash
GO    ?= go
PKGS  := ./...

# Pinned so that CI and every machine lint alike (fetched through the module proxy).
STATICCHECK := v0.8.2
DEADCODE    := v0.52.0

.PHONY: help build test test-short test-faults run bench lint deadcode ci fuzz clean

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-12s %s\n", $$1, $$2}'

# --version's revision when the toolchain cannot stamp it (GOFLAGS=-buildvcs=false, a git worktree).
REVISION := $(shell git rev-parse --short=12 HEAD 2>/dev/null)$(shell git diff --quiet HEAD 2>/dev/null || echo -modified)
LDFLAGS  := -X github.com/tessera-solver/tessera/internal/version.revision=$(REVISION)

build: ## build the three binaries into bin/
	$(GO) build -ldflags '$(LDFLAGS)' -o bin/ ./producer ./solverd ./results

# The JSON stream goes through scripts/testsummary, which prints what go
# test prints and ends with the tests that skipped and why.
test: ## run every test (starts or finds PostgreSQL first; NATS is in-process, but for the fault suite's CI subset); lists skipped tests at the end
	@export TEST_DATABASE_URL="$${TEST_DATABASE_URL:-$$(scripts/pg-local.sh)}" && \
	  echo "PostgreSQL: $$TEST_DATABASE_URL" && \
	  set -o pipefail && $(GO) test -json -count=1 -timeout 20m $(PKGS) | $(GO) run ./scripts/testsummary

test-short: ## unit tests only, no databases
	$(GO) test -short -count=1 $(PKGS)

# The figures table goes to a file and is printed at the end, so that it
# is the last thing on the screen (docs/RELIABILITY.md keeps it).
test-faults: ## fault suite (~18 min): kill -9, restarts, poison, starvation, a three-node NATS cluster, on real nats-server + PostgreSQL; prints docs/RELIABILITY.md's figures
	@report=$$(mktemp) && \
	  TESSERA_FAULTS=full TESSERA_FAULTS_REPORT=$$report $(GO) test -count=1 -timeout 40m -run '^TestFaults$$' -v ./internal/faults; \
	  rc=$$?; echo; cat $$report; rm -f $$report; exit $$rc

run: build ## the demo: the whole pipeline in one process on an embedded NATS and a local PostgreSQL
	@echo "building the small 15-puzzle tables first (15-pdb-663, ~5 s; without them the 15-puzzles take about 30 s)"
	bin/solverd tables build 15-pdb-663
	@export TESSERA_DATABASE_URL="$${TESSERA_DATABASE_URL:-$$(scripts/pg-local.sh)}" && \
	  bin/producer --puzzle 8 --random 20000 --seed 1 --local --wait && \
	  bin/producer --puzzle 15 --random 100 --seed 1 --local --wait

bench: ## benchmarks behind docs/BENCHMARKS.md (long: builds every table, Korf's 100, 24-puzzles, 1M-state pipeline)
	$(GO) run ./solverd tables build loopover-5x5-p1
	TESSERA_SOLVER_TABLES_DIR="$${TESSERA_SOLVER_TABLES_DIR:-$${XDG_CACHE_HOME:-$$HOME/.cache}/tessera/tables}" \
		$(GO) test -run '^$$' -bench . -benchtime 1x -timeout 120m ./internal/...
	scripts/bench-pipeline.sh
	$(GO) run ./internal/tablebench/datasheet --doc docs/BENCHMARKS.md

lint: ## gofmt, go vet, staticcheck, and the dead-code check (scripts/deadcode.sh, as make deadcode)
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet $(PKGS)
	$(GO) run honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK) $(PKGS)
	DEADCODE=$(DEADCODE) scripts/deadcode.sh

deadcode: ## functions nothing reaches, or only tests (scripts/deadcode-allow.txt lists the few kept on purpose)
	DEADCODE=$(DEADCODE) scripts/deadcode.sh

FUZZ := internal/puzzle:FuzzParse internal/puzzle:FuzzParseMoves internal/puzzle:FuzzParseSpec \
	internal/puzzle:FuzzUnmarshalJSON internal/worker:FuzzDecodeJob internal/ingest:FuzzDecode \
	producer:FuzzReadLines internal/fulltable:FuzzSolve internal/swap:FuzzSolve \
	tables:FuzzParseHeader
FUZZTIME ?= 15s

fuzz: ## a short fuzzing pass over every parser (FUZZTIME each, default 15s)
	@set -e; for f in $(FUZZ); do pkg=$${f%%:*}; fn=$${f##*:}; \
	  echo "== $$fn ./$$pkg"; $(GO) test -run '^$$' -fuzz "^$$fn\$$" -fuzztime $(FUZZTIME) ./$$pkg; done

ci: lint test ## what CI runs

clean: ## remove binaries (tables are kept: rebuilding them is slow)
	rm -rf bin/
