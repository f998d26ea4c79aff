# Reports (engineer R, issue 9): the report load benchmark against a
# dedicated database (rebound_bench) on the private PostgreSQL of
# scripts/services.sh. `make bench` runs BenchmarkBounces with every other
# benchmark; bench-report runs the HTTP load driver (chain it after bench).
# LOADBENCH_FLAGS passes flags to `loadbench run`, e.g. -vary-days 300 (most
# requests miss the report cache), -route workspace (the floor: key check and
# one query), -clients, -requests, -duration, -cpuprofile FILE.

LOADBENCH_FLAGS ?=

.PHONY: seed-bench bench-report test-report

seed-bench: services-up ## (re)create rebound_bench: 100 campaigns, 1,000,000 events, counters (checked against the events)
	$(GO) run ./cmd/loadbench seed -url '$(SERVICES_DATABASE_URL)'

bench-report: services-up ## 32 clients against GET /v1/campaigns/{id}/reports/bounces on a loopback server over rebound_bench; prints p50, p99, requests/s
	$(GO) run ./cmd/loadbench run -url '$(SERVICES_DATABASE_URL)' $(LOADBENCH_FLAGS)

test-report: services-up ## report tests: exactness under random load, API routes
	$(TEST_ENV) $(GO) test ./internal/report/...
	$(TEST_ENV) $(GO) test ./internal/api/ -run 'BounceReports|WorkspaceIsolation'
