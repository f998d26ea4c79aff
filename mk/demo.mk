# make demo (issue 10): Rebound's whole job end to end on real bounces.
# internal/demo does the work; `rebound demo -h` lists its flags.

DEMO_FLAGS ?=

.PHONY: demo

demo: services-up ## start services, API, worker and an IMAP server of real bounces; print the campaign report (ONCE=1: exit after printing; DEMO_FLAGS='-sync trigger' to skip the scheduler's minute wait)
	@mkdir -p .run/demo/bin
	$(GO) build -o .run/demo/bin/rebound ./cmd/rebound
	.run/demo/bin/rebound demo $(if $(ONCE),-once) $(DEMO_FLAGS)
