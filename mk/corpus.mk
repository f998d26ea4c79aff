# Decoder scoring and speed (owner: D1, internal/dsn).

CORPUS ?= ../shared/corpus

.PHONY: corpus corpus-bench

corpus: ## score the decoder on ../shared/corpus (CORPUS=DIR for another): status, reason, address_invalid, recipient, then failures by MTA family
	$(GO) run ./cmd/rebound corpus $(CORPUS)

corpus-bench: ## decoder speed on the corpus (msgs/s, MB/s, allocations) and on a large message
	$(GO) test -run '^$$' -bench 'BenchmarkDecode' -benchmem ./internal/dsn/
