// Package deploytest validates deploy/ from `go test` (and so `make test`
// and `make deploy-check`): the kustomize base renders with `kubectl
// kustomize`; every YAML file parses strictly (no duplicate keys, no tabs,
// one or more documents); every Deployment and Job runs non-root with a
// read-only root, dropped capabilities and resource requests, every
// Deployment has liveness and readiness probes on a declared port and a
// PodDisruptionBudget, the API an autoscaler; every variable set in the
// ConfigMap, Secret and compose file is one the binaries read; the compose
// file defines postgres, redis, migrate, api and worker with sound
// dependencies and Dockerfile targets; and each binary builds with
// CGO_ENABLED=0 as a static executable. It holds no code besides its tests.
package deploytest
