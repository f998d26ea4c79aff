package api

import (
	"net/http"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/rebound-hq/rebound/internal/classify"
)

// serverRoutes are the routes server.go registers itself, outside the
// route table.
var serverRoutes = []route{
	{method: http.MethodGet, path: "/healthz"},
	{method: http.MethodGet, path: "/readyz"},
}

// TestRouteTableMatchesSpec checks that every route the server serves is
// an operation of openapi.yaml and every operation is served.
func TestRouteTableMatchesSpec(t *testing.T) {
	doc, err := Spec()
	if err != nil {
		t.Fatal(err)
	}
	served := map[string]bool{}
	for _, r := range append(routes(), serverRoutes...) {
		k := r.method + " " + r.path
		if served[k] {
			t.Errorf("route %s is in the table twice", k)
		}
		served[k] = true
	}
	inSpec := map[string]bool{}
	for path, item := range doc.Paths.Map() {
		for method := range item.Operations() {
			inSpec[method+" "+path] = true
		}
	}
	var missing, extra []string
	for k := range served {
		if !inSpec[k] {
			missing = append(missing, k)
		}
	}
	for k := range inSpec {
		if !served[k] {
			extra = append(extra, k)
		}
	}
	sort.Strings(missing)
	sort.Strings(extra)
	if len(missing) > 0 {
		t.Errorf("served but not in openapi.yaml: %s", strings.Join(missing, ", "))
	}
	if len(extra) > 0 {
		t.Errorf("in openapi.yaml but not served: %s", strings.Join(extra, ", "))
	}
}

// TestKeyRoutesAreSecured checks that the spec's security matches the
// route table's authentication, route by route.
func TestKeyRoutesAreSecured(t *testing.T) {
	doc, err := Spec()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range routes() {
		op := doc.Paths.Find(r.path).GetOperation(r.method)
		if op == nil {
			continue // reported by TestRouteTableMatchesSpec
		}
		sec := doc.Security
		if op.Security != nil {
			sec = *op.Security
		}
		var schemes []string
		for _, req := range sec {
			for name := range req {
				schemes = append(schemes, name)
			}
		}
		want := map[authKind]string{authNone: "", authKey: "apiKey", authOperator: "operatorToken"}[r.auth]
		got := strings.Join(schemes, ",")
		if got != want {
			t.Errorf("%s %s: spec security %q, route table %q", r.method, r.path, got, want)
		}
		if r.auth != authNone && op.Responses.Status(http.StatusUnauthorized) == nil {
			t.Errorf("%s %s: spec lists no 401", r.method, r.path)
		}
		if strings.Contains(r.path, "{") && r.auth == authKey && op.Responses.Status(http.StatusNotFound) == nil {
			t.Errorf("%s %s: spec lists no 404", r.method, r.path)
		}
	}
}

func TestEchoPath(t *testing.T) {
	for in, want := range map[string]string{
		"/v1/leads":                      "/v1/leads",
		"/v1/leads/{lead_id}":            "/v1/leads/:lead_id",
		"/v1/leads/{lead_id}/activities": "/v1/leads/:lead_id/activities",
		"/v1/a/{x}/b/{y}":                "/v1/a/:x/b/:y",
	} {
		if got := echoPath(in); got != want {
			t.Errorf("echoPath(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestFilterEnumsMatchSpec checks that the bounce list filters accept
// exactly the values of openapi.yaml's Kind, Class, Label and Reason
// schemas (the API takes the reasons and labels from internal/classify).
func TestFilterEnumsMatchSpec(t *testing.T) {
	doc, err := Spec()
	if err != nil {
		t.Fatal(err)
	}
	for name, got := range map[string][]string{
		"Kind": bounceKinds, "Class": bounceClasses, "Label": reportLabels, "Reason": classify.Reasons,
	} {
		ref, ok := doc.Components.Schemas[name]
		if !ok {
			t.Fatalf("openapi.yaml has no %s schema", name)
		}
		var want []string
		for _, v := range ref.Value.Enum {
			want = append(want, v.(string))
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s filter values = %v, openapi.yaml says %v", name, got, want)
		}
	}
}
