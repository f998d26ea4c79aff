# Mailbox sync (internal/mailbox, internal/secret, internal/tasks): the private Dovecot
# of scripts/dovecot.sh, and targeted test and benchmark runs.
# The Dovecot tests start Dovecot themselves through scripts/dovecot.sh, so `make test`
# needs no extra step; dovecot-up only saves the first test the start-up.

.PHONY: dovecot-up dovecot-down dovecot-status test-mailbox bench-mailbox

dovecot-up: ## install (as root, when missing) and start the private Dovecot under .run/dovecot
	@scripts/dovecot.sh up

dovecot-down: ## stop the private Dovecot
	@scripts/dovecot.sh down

dovecot-status: ## show whether the private Dovecot runs, and where
	@scripts/dovecot.sh status

test-mailbox: services-up dovecot-up ## run the secret, mailbox and tasks tests (in-process IMAP, Dovecot, PostgreSQL, Redis)
	$(TEST_ENV) $(GO) test $(TESTFLAGS) ./internal/secret/... ./internal/mailbox/... ./internal/tasks/...

bench-mailbox: services-up dovecot-up ## sync a 10,000-message Dovecot folder into PostgreSQL; reports msgs/s and bounces/s
	$(TEST_ENV) $(GO) test -run '^$$' -bench BenchmarkSyncDovecot10k -benchtime 1x ./internal/tasks/
