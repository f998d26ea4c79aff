// Package rebound holds files of the repository root that programs embed:
// the OpenAPI document of the REST API.
package rebound

import _ "embed"

// OpenAPI is openapi.yaml, the OpenAPI 3.1 description of every route the
// API serves (internal/api serves it at /openapi.yaml and its tests validate
// every request and response against it).
//
//go:embed openapi.yaml
var OpenAPI []byte
