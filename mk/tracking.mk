# Tracking (engineer T): recording benchmark and tests against the private
# PostgreSQL of scripts/services.sh. `make bench` runs BenchmarkRecordBatch
# with every other benchmark; these targets run it alone.

.PHONY: bench-tracking test-tracking

bench-tracking: services-up ## record batches of generated bounces into PostgreSQL (events/s) and reprocess them (msgs/s)
	$(TEST_ENV) $(GO) test -run '^$$' -bench 'BenchmarkRecordBatch|BenchmarkReprocess' -benchtime 10x -benchmem ./internal/tracking/

test-tracking: services-up ## tests of store, tracking and rebound reprocess against PostgreSQL
	$(TEST_ENV) $(GO) test ./internal/store/ ./internal/tracking/ ./cmd/rebound/ -run 'Query|Queries|StringArray|Policy|Dedupe|VERP|Compress|Record|Reprocess'
