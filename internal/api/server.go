// Package api is Rebound's REST API, served with Echo.
//
//   - routes.go is the one route table: method, path (as openapi.yaml spells
//     it), authentication and body limit of every route.
//   - Handlers are thin: they decode and validate the request (naming each
//     field at fault), call the store or a service, and answer with a
//     toXResponse converter; GORM models never reach JSON.
//   - problem.go holds the one error handler that picks a status and writes
//     RFC 9457 problems; handlers only return errors.
//   - Every /v1 route but the operator routes takes a Bearer API key
//     (keys.go); every query is scoped to the key's workspace, so another
//     workspace's row answers 404. Keys are rate limited (ratelimit.go).
//   - Lists use opaque keyset cursors over a stable order (pagination.go).
//   - openapi.yaml (embedded by the root package, served at /openapi.yaml)
//     describes every route; the tests validate every request and response
//     against it. /metrics serves internal/metrics.
//   - server.go and health.go build the server with request IDs, access
//     logs and the /healthz and /readyz probes.
package api

import (
	"log/slog"
	"time"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/rebound-hq/rebound/internal/logging"
)

// HeaderRequestID is the request ID header: taken from the request when it
// looks like an ID (a proxy's), else generated, and echoed in the response.
const HeaderRequestID = echo.HeaderXRequestID

// New returns the API server: every request gets an ID and a logger carrying
// it (logging.FromContext on the request's context) and one access log line;
// /healthz and /readyz probe checks; register then adds the rest (cmd/api
// passes a function calling Register with the handlers' Deps). A nil log
// means slog.Default().
func New(log *slog.Logger, checks []ReadyCheck, register func(*echo.Echo)) *echo.Echo {
	if log == nil {
		log = slog.Default()
	}
	e := echo.New()
	e.HideBanner = true
	e.HidePort = true
	e.Use(requestContext(log))
	e.GET("/healthz", healthz)
	e.GET("/readyz", readyz(checks))
	if register != nil {
		register(e)
	}
	return e
}

// requestContext gives each request an ID and a logger carrying it (stored in
// the request's context), and logs one line per request when it ends. Health
// probes log at debug level so they do not drown the rest.
func requestContext(base *slog.Logger) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			req := c.Request()
			id := req.Header.Get(HeaderRequestID)
			if !validRequestID(id) {
				id = uuid.NewString()
			}
			c.Response().Header().Set(HeaderRequestID, id)
			log := base.With("request_id", id)
			c.SetRequest(req.WithContext(logging.WithContext(req.Context(), log)))

			start := time.Now()
			if err := next(c); err != nil {
				// Write the error response now, so the line below has its status.
				c.Error(err)
			}
			level := slog.LevelInfo
			if c.Path() == "/healthz" || c.Path() == "/readyz" {
				level = slog.LevelDebug
			}
			res := c.Response()
			log.LogAttrs(req.Context(), level, "api: request",
				slog.String("method", req.Method),
				slog.String("path", req.URL.Path),
				slog.String("route", c.Path()),
				slog.Int("status", res.Status),
				slog.Int64("bytes", res.Size),
				slog.Duration("elapsed", time.Since(start)),
				slog.String("remote_ip", c.RealIP()),
			)
			return nil
		}
	}
}

// validRequestID accepts 1 to 64 characters of letters, digits, '-', '_' and
// '.', so a client cannot inject arbitrary text into the logs.
func validRequestID(id string) bool {
	if id == "" || len(id) > 64 {
		return false
	}
	for _, r := range id {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
			return false
		}
	}
	return true
}
