package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
	"github.com/hibiken/asynq"
	"github.com/labstack/echo/v4"
	"gorm.io/gorm"

	"github.com/rebound-hq/rebound/internal/api"
	"github.com/rebound-hq/rebound/internal/dbtest"
	"github.com/rebound-hq/rebound/internal/mailbox"
	"github.com/rebound-hq/rebound/internal/secret"
	"github.com/rebound-hq/rebound/internal/tracking"
)

// This file is the API test harness: every request a test makes goes
// through env.do, which validates the request and the response against
// openapi.yaml with kin-openapi, and records the operation it exercised.
// TestMain fails the run when an operation of the spec was never exercised,
// so spec and server cannot drift apart unnoticed.

const testOperatorToken = "operator-token-for-tests-0123456789"

var (
	specRouter routers.Router
	specDoc    *openapi3.T

	coverMu sync.Mutex
	covered = map[string]map[int]bool{} // operation ID -> statuses seen
)

func TestMain(m *testing.M) {
	flag.Parse()
	doc, err := api.Spec()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	specDoc = doc
	specRouter, err = gorillamux.NewRouter(doc)
	if err != nil {
		fmt.Fprintln(os.Stderr, "api test: router:", err)
		os.Exit(1)
	}
	openapi3filter.RegisterBodyDecoder("message/rfc822", openapi3filter.PlainBodyDecoder)
	code := m.Run()
	if code == 0 && flag.Lookup("test.run").Value.String() == "" && !testing.Short() {
		if missing := uncovered(); len(missing) > 0 {
			fmt.Fprintf(os.Stderr, "api test: operations of openapi.yaml no test exercised: %s\n", strings.Join(missing, ", "))
			code = 1
		}
	}
	os.Exit(code)
}

// uncovered lists the operations of the spec no request reached, and the
// documented success statuses no response carried.
func uncovered() []string {
	coverMu.Lock()
	defer coverMu.Unlock()
	var out []string
	for path, item := range specDoc.Paths.Map() {
		for method, op := range item.Operations() {
			seen := covered[op.OperationID]
			if len(seen) == 0 {
				out = append(out, fmt.Sprintf("%s %s (%s)", method, path, op.OperationID))
				continue
			}
			for status := range op.Responses.Map() {
				if len(status) == 3 && status[0] == '2' {
					var n int
					fmt.Sscan(status, &n)
					if !seen[n] {
						out = append(out, fmt.Sprintf("%s %s status %s", method, path, status))
					}
				}
			}
		}
	}
	sort.Strings(out)
	return out
}

// env is one API server on a fresh database.
type env struct {
	t        *testing.T
	db       *gorm.DB
	e        *echo.Echo
	tracking *tracking.Service
}

// testQueue returns an asynq client on the test Redis of make test.
func testQueue(t *testing.T) *asynq.Client {
	t.Helper()
	raw := dbtest.RedisURL(t)
	opt, err := asynq.ParseRedisURI(raw)
	if err != nil {
		t.Fatal(err)
	}
	c := asynq.NewClient(opt)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// envOption adjusts the Deps of newEnv.
type envOption func(*api.Deps)

// withRateLimit sets the per-key rate limit.
func withRateLimit(rl api.RateLimit) envOption {
	return func(d *api.Deps) { d.RateLimit = &rl }
}

// newEnv starts an API on a fresh, migrated database.
func newEnv(t *testing.T, opts ...envOption) *env {
	t.Helper()
	db := dbtest.New(t)
	v := &env{t: t, db: db}
	keyring, err := secret.NewKeyring(map[string][]byte{"test": bytes.Repeat([]byte{7}, 32)}, "test")
	if err != nil {
		t.Fatal(err)
	}
	v.tracking = tracking.New(db, tracking.Options{})
	d := api.Deps{
		DB:            db,
		Log:           slog.New(slog.NewTextHandler(io.Discard, nil)),
		OperatorToken: testOperatorToken,
		RateLimit:     &api.RateLimit{}, // off unless a test turns it on
		Mailboxes: &mailbox.Service{DB: db, Keyring: keyring,
			Policy: &mailbox.Policy{AllowPrivateHosts: true, DialTimeout: 2 * time.Second, IOTimeout: 2 * time.Second}},
		Queue:    testQueue(t),
		Tracking: v.tracking,
	}
	for _, o := range opts {
		o(&d)
	}
	v.e = api.New(d.Log, nil, func(e *echo.Echo) { api.Register(e, d) })
	return v
}

// request describes one call of env.do.
type request struct {
	method, path string
	token        string
	body         []byte
	contentType  string
	// invalid marks a request that deliberately breaks the spec (to check
	// the server's own validation); only its response is validated.
	invalid bool
}

// response is what the server answered.
type response struct {
	t      *testing.T
	req    request
	Status int
	Header http.Header
	Body   []byte
}

// jsonBody marshals v as a request body.
func jsonBody(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// do sends r to the server, validating request and response against the
// spec; any mismatch fails the test.
func (v *env) do(r request) *response {
	v.t.Helper()
	req := httptest.NewRequest(r.method, r.path, bytes.NewReader(r.body))
	if r.body != nil {
		ct := r.contentType
		if ct == "" {
			ct = echo.MIMEApplicationJSON
		}
		req.Header.Set(echo.HeaderContentType, ct)
	}
	if r.token != "" {
		req.Header.Set(echo.HeaderAuthorization, "Bearer "+r.token)
	}
	route, params, err := specRouter.FindRoute(req)
	if err != nil {
		if !r.invalid {
			v.t.Fatalf("%s %s: not in openapi.yaml: %v", r.method, r.path, err)
		}
		route = nil
	}
	ctx := context.Background()
	in := &openapi3filter.RequestValidationInput{
		Request: req, PathParams: params, Route: route,
		Options: &openapi3filter.Options{
			MultiError:         true,
			AuthenticationFunc: func(context.Context, *openapi3filter.AuthenticationInput) error { return nil },
		},
	}
	if route != nil && !r.invalid {
		if err := openapi3filter.ValidateRequest(ctx, in); err != nil {
			v.t.Fatalf("%s %s: request does not match openapi.yaml: %s", r.method, r.path, short(err))
		}
		req.Body = io.NopCloser(bytes.NewReader(r.body))
	}

	rec := httptest.NewRecorder()
	v.e.ServeHTTP(rec, req)
	res := &response{t: v.t, req: r, Status: rec.Code, Header: rec.Header(), Body: rec.Body.Bytes()}

	if route != nil {
		coverMu.Lock()
		if covered[route.Operation.OperationID] == nil {
			covered[route.Operation.OperationID] = map[int]bool{}
		}
		covered[route.Operation.OperationID][rec.Code] = true
		coverMu.Unlock()
		out := &openapi3filter.ResponseValidationInput{
			RequestValidationInput: in,
			Status:                 rec.Code,
			Header:                 rec.Header(),
			Body:                   io.NopCloser(bytes.NewReader(res.Body)),
			Options:                &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true},
		}
		if err := openapi3filter.ValidateResponse(ctx, out); err != nil {
			v.t.Fatalf("%s %s: response %d does not match openapi.yaml: %s\nbody: %.2000s", r.method, r.path, rec.Code, short(err), res.Body)
		}
	}
	return res
}

// expect fails the test unless the status is want.
func (r *response) expect(want int) *response {
	r.t.Helper()
	if r.Status != want {
		r.t.Fatalf("%s %s = %d, want %d\nbody: %s", r.req.method, r.req.path, r.Status, want, r.Body)
	}
	return r
}

// decode unmarshals the body into v.
func (r *response) decode(v any) {
	r.t.Helper()
	if err := json.Unmarshal(r.Body, v); err != nil {
		r.t.Fatalf("%s %s: body %s: %v", r.req.method, r.req.path, r.Body, err)
	}
}

// problem is the RFC 9457 body of an error response.
type problem struct {
	Type   string `json:"type"`
	Title  string `json:"title"`
	Status int    `json:"status"`
	Detail string `json:"detail"`
	Code   string `json:"code"`
	Errors []struct {
		In      string `json:"in"`
		Field   string `json:"field"`
		Message string `json:"message"`
	} `json:"errors"`
}

// problem decodes an error response and checks its media type and status.
func (r *response) problem() problem {
	r.t.Helper()
	if ct := r.Header.Get(echo.HeaderContentType); ct != api.ProblemContentType {
		r.t.Fatalf("%s %s: Content-Type %q, want %s", r.req.method, r.req.path, ct, api.ProblemContentType)
	}
	var p problem
	r.decode(&p)
	if p.Status != r.Status {
		r.t.Fatalf("problem status %d differs from HTTP status %d", p.Status, r.Status)
	}
	return p
}

// expectField fails unless the response is a problem of status want that
// names field (in "body", "query", ...).
func (r *response) expectField(want int, in, field string) problem {
	r.t.Helper()
	r.expect(want)
	p := r.problem()
	for _, f := range p.Errors {
		if f.In == in && f.Field == field {
			return p
		}
	}
	r.t.Fatalf("%s %s: problem does not name %s %s: %s", r.req.method, r.req.path, in, field, r.Body)
	return p
}

// workspace is a workspace created through the operator route, with its
// first API key.
type workspace struct {
	ID    int64
	Token string
	KeyID int64
}

// newWorkspace creates a workspace and returns it with its key.
func (v *env) newWorkspace(name string) workspace {
	v.t.Helper()
	res := v.do(request{method: "POST", path: "/v1/workspaces", token: testOperatorToken,
		body: jsonBody(v.t, map[string]any{"name": name})}).expect(http.StatusCreated)
	var out struct {
		Workspace struct{ ID int64 } `json:"workspace"`
		APIKey    struct {
			ID    int64  `json:"id"`
			Token string `json:"token"`
		} `json:"api_key"`
	}
	res.decode(&out)
	return workspace{ID: out.Workspace.ID, Token: out.APIKey.Token, KeyID: out.APIKey.ID}
}

// idOf decodes the "id" field of a response.
func (r *response) idOf() int64 {
	r.t.Helper()
	var x struct {
		ID int64 `json:"id"`
	}
	r.decode(&x)
	if x.ID == 0 {
		r.t.Fatalf("%s %s: no id in %s", r.req.method, r.req.path, r.Body)
	}
	return x.ID
}

// get, post, patch, put and del are shorthands of do for valid requests.
func (v *env) get(token, path string) *response {
	v.t.Helper()
	return v.do(request{method: "GET", path: path, token: token})
}

func (v *env) post(token, path string, body any) *response {
	v.t.Helper()
	return v.do(request{method: "POST", path: path, token: token, body: jsonBody(v.t, body)})
}

func (v *env) patch(token, path string, body any) *response {
	v.t.Helper()
	return v.do(request{method: "PATCH", path: path, token: token, body: jsonBody(v.t, body)})
}

func (v *env) put(token, path string, body any) *response {
	v.t.Helper()
	return v.do(request{method: "PUT", path: path, token: token, body: jsonBody(v.t, body)})
}

func (v *env) del(token, path string) *response {
	v.t.Helper()
	return v.do(request{method: "DELETE", path: path, token: token})
}

// short cuts kin-openapi's error, which quotes whole schemas, to its
// first lines.
func short(err error) string {
	lines := strings.SplitN(err.Error(), "\n", 6)
	if len(lines) > 5 {
		lines = lines[:5]
	}
	return strings.Join(lines, "\n")
}
