# deploy/ (engineer S, issue 11): validation of the images, compose file and
# Kubernetes base, and the multi-worker process tests. `make test` runs the
# same tests with everything else; these targets run them alone.

.PHONY: deploy-check test-workers kustomize-render

deploy-check: ## validate deploy/: kubectl kustomize renders, strict YAML, probes/resources/non-root, compose services, static CGO_ENABLED=0 builds
	$(GO) test $(TESTFLAGS) ./internal/deploytest/

kustomize-render: ## print the rendered Kubernetes base (kubectl kustomize deploy/k8s)
	kubectl kustomize deploy/k8s

test-workers: services-up dovecot-up ## 3 worker processes on 50 mailboxes, SIGTERM during a sync, worker probes and metrics
	$(TEST_ENV) $(GO) test $(TESTFLAGS) -run 'Process|SIGTERM|Overlap|RunUntilCancelled' -v ./cmd/worker/
