package api

import "testing"

func TestSpecIsValid(t *testing.T) {
	doc, err := Spec()
	if err != nil {
		t.Fatal(err)
	}
	if !doc.IsOpenAPI31OrLater() {
		t.Fatalf("openapi.yaml is OpenAPI %s, want 3.1", doc.OpenAPI)
	}
}
