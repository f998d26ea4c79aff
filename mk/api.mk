# REST API targets (internal/api, cmd/api, internal/metrics, openapi.yaml).

.PHONY: api-test api-spec

api-test: services-up ## run the API tests (every request and response validated against openapi.yaml) against the private services
	$(TEST_ENV) $(GO) run ./cmd/rebound migrate up
	$(TEST_ENV) $(GO) test $(TESTFLAGS) ./internal/api/... ./internal/metrics/... ./cmd/api/...

api-spec: ## check that openapi.yaml is valid OpenAPI 3.1 and matches the route table
	$(GO) test -run 'TestSpecIsValid|TestRouteTableMatchesSpec|TestKeyRoutesAreSecured' ./internal/api/
