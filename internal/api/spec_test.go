package api

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	rebound "github.com/rebound-hq/rebound"
)

var (
	specOnce sync.Once
	specDoc  *openapi3.T
	specErr  error
)

// Spec returns the parsed and validated OpenAPI document embedded from
// openapi.yaml. It is parsed once. Only the tests (this package's and
// package api_test's) use it, so it lives in a test file and the API binary
// does not link kin-openapi.
func Spec() (*openapi3.T, error) {
	specOnce.Do(func() {
		loader := openapi3.NewLoader()
		doc, err := loader.LoadFromData(rebound.OpenAPI)
		if err != nil {
			specErr = fmt.Errorf("api: load openapi.yaml: %w", err)
			return
		}
		if err := doc.Validate(context.Background()); err != nil {
			specErr = fmt.Errorf("api: openapi.yaml is invalid: %w", err)
			return
		}
		specDoc = doc
	})
	return specDoc, specErr
}

func TestSpecIsValid(t *testing.T) {
	doc, err := Spec()
	if err != nil {
		t.Fatal(err)
	}
	if !doc.IsOpenAPI31OrLater() {
		t.Fatalf("openapi.yaml is OpenAPI %s, want 3.1", doc.OpenAPI)
	}
}
