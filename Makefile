# Rebound: development, test and build entry points.
# `make help` lists the targets. Other areas add targets in mk/<area>.mk (included at the end).

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help

GO ?= go
SERVICES := scripts/services.sh

# The URLs scripts/services.sh serves. Printing them starts nothing.
SERVICES_DATABASE_URL := $(shell $(SERVICES) env DATABASE_URL)
SERVICES_REDIS_URL := $(shell $(SERVICES) env REDIS_URL)
SERVICES_TEST_REDIS_URL := $(shell $(SERVICES) env REBOUND_TEST_REDIS_URL)

# Commands started from make talk to the private services unless the caller set
# DATABASE_URL / REDIS_URL already.
DATABASE_URL ?= $(SERVICES_DATABASE_URL)
REDIS_URL ?= $(SERVICES_REDIS_URL)
export DATABASE_URL REDIS_URL

# Tests always use the private services.
TEST_ENV := REBOUND_TEST_DATABASE_URL='$(SERVICES_DATABASE_URL)' \
	REBOUND_TEST_REDIS_URL='$(SERVICES_TEST_REDIS_URL)' \
	DATABASE_URL='$(SERVICES_DATABASE_URL)' REDIS_URL='$(SERVICES_REDIS_URL)'

TESTFLAGS ?=
MIGRATE ?= up
BENCH ?= .
BENCHPKGS ?= ./...
BENCHCOUNT ?= 1

.PHONY: help services-up services-down services-status migrate run-api run-worker test fuzz bench lint build

help: ## list the targets
	@grep -hE '^[a-zA-Z_-]+:.*## ' $(MAKEFILE_LIST) | sort | awk -F':.*## ' '{printf "  %-18s %s\n", $$1, $$2}'

services-up: ## install (as root, when missing) and start the private PostgreSQL and Redis under .run/
	@$(SERVICES) up

services-down: ## stop the private PostgreSQL and Redis
	@$(SERVICES) down

services-status: ## show whether the private services run, and their URLs
	@$(SERVICES) status || true

migrate: services-up ## apply migrations to DATABASE_URL (MIGRATE=status|down|reset to do otherwise)
	$(GO) run ./cmd/rebound migrate $(MIGRATE)

run-api: migrate ## run the API server (API_ADDR, default 127.0.0.1:8080)
	$(GO) run ./cmd/api

run-worker: migrate ## run the asynq worker and scheduler
	$(GO) run ./cmd/worker

test: services-up ## start services, migrate, run every test against them, then fuzz the pure core for FUZZTIME each
	$(TEST_ENV) $(GO) run ./cmd/rebound migrate up
	$(TEST_ENV) $(GO) test $(TESTFLAGS) ./...
	@$(MAKE) --no-print-directory fuzz

# Fuzz targets of the pure core, run for a bounded time each (FUZZTIME).
FUZZTIME ?= 20s
FUZZ_TARGETS := internal/dsn:FuzzDecode internal/classify:FuzzReasonOf internal/codes:FuzzExplain

fuzz: ## run each fuzz target of the pure core (decoder, classifier, code lookup) for FUZZTIME (default 20s)
	@for t in $(FUZZ_TARGETS); do \
		pkg=$${t%%:*}; fn=$${t##*:}; \
		echo "fuzz: $$fn in ./$$pkg for $(FUZZTIME)"; \
		$(GO) test -run '^$$' -fuzz "^$$fn\$$" -fuzztime $(FUZZTIME) ./$$pkg; \
	done

bench: services-up ## run benchmarks (BENCH=regexp BENCHPKGS=./pkg/... BENCHCOUNT=6 for benchstat confidence) and the report load driver into bench-<time>.txt; benchstat against the previous report
	@prev=$$(ls -1 bench-*.txt 2>/dev/null | tail -n 1 || true); \
	out=bench-$$(date -u +%Y%m%dT%H%M%SZ).txt; \
	$(TEST_ENV) $(GO) test -run '^$$' -bench '$(BENCH)' -benchmem -count $(BENCHCOUNT) $(BENCHPKGS) | tee "$$out"; \
	echo "bench: campaign report under load (32 clients over rebound_bench; make seed-bench creates it)"; \
	$(GO) run ./cmd/loadbench run -url '$(SERVICES_DATABASE_URL)' $(LOADBENCH_FLAGS) 2>&1 | tee -a "$$out" || \
		echo "bench: report load driver did not run (see the line above; make seed-bench seeds its database)"; \
	echo "bench: report written to $$out"; \
	bs=$$(command -v benchstat || echo "$$($(GO) env GOPATH)/bin/benchstat"); \
	if [ ! -x "$$bs" ]; then $(GO) install golang.org/x/perf/cmd/benchstat@latest || true; fi; \
	if [ -n "$$prev" ] && [ -x "$$bs" ]; then echo "bench: benchstat $$prev $$out"; "$$bs" "$$prev" "$$out"; \
	elif [ -z "$$prev" ]; then echo "bench: no previous report to compare with"; \
	else echo "bench: benchstat not available; skipped the comparison"; fi

lint: ## go vet and gofmt check
	$(GO) vet ./...
	@files=$$(gofmt -l $$(git ls-files '*.go'; git ls-files --others --exclude-standard '*.go')); \
	if [ -n "$$files" ]; then echo "gofmt needed:"; echo "$$files"; exit 1; fi

build: ## build bin/api, bin/worker and bin/rebound
	$(GO) build -o bin/api ./cmd/api
	$(GO) build -o bin/worker ./cmd/worker
	$(GO) build -o bin/rebound ./cmd/rebound

-include mk/*.mk
