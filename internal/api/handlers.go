package api

import (
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"
	"gorm.io/gorm"

	"github.com/rebound-hq/rebound/internal/mailbox"
	"github.com/rebound-hq/rebound/internal/metrics"
	"github.com/rebound-hq/rebound/internal/store"
	"github.com/rebound-hq/rebound/internal/tasks"
	"github.com/rebound-hq/rebound/internal/tracking"

	rebound "github.com/rebound-hq/rebound"
)

// Deps are what the API's handlers need; cmd/api builds them once. DB is
// required.
type Deps struct {
	DB *gorm.DB
	// Log is the process logger; requests log through the child that
	// logging.FromContext finds on their context.
	Log *slog.Logger
	// OperatorToken guards the operator routes (creating workspaces and
	// their keys); "" turns them off (every call answers 401).
	OperatorToken string
	// RateLimit applies per API key; nil takes DefaultRateLimit, a zero
	// PerSecond turns limiting off.
	RateLimit *RateLimit
	// Mailboxes runs the mailbox operations (sealed credentials, connection
	// tests); nil answers the mailbox routes 503.
	Mailboxes *mailbox.Service
	// Queue enqueues mailbox syncs (an *asynq.Client); nil answers the sync
	// route 503.
	Queue tasks.Enqueuer
	// Tracking registers sent messages (counters, timeline, policy); nil
	// answers the sent-message registration routes 503.
	Tracking *tracking.Service
	// Now returns the current time; nil means time.Now.
	Now func() time.Time
}

// handlers carries the dependencies of every handler method.
type handlers struct {
	Deps
	limiter *keyLimiter
	metrics http.Handler // metrics.Handler(), built once
}

// DefaultRateLimit is the per-API-key rate limit when Deps.RateLimit is
// nil: 20 requests a second sustained, bursts of 100.
var DefaultRateLimit = RateLimit{PerSecond: 20, Burst: 100}

// Register installs the error handler, the request metrics middleware and
// every route of the route table on e, each with its body limit and its
// authentication.
func Register(e *echo.Echo, d Deps) {
	if d.Log == nil {
		d.Log = slog.Default()
	}
	if d.Now == nil {
		d.Now = time.Now
	}
	rl := DefaultRateLimit
	if d.RateLimit != nil {
		rl = *d.RateLimit
	}
	h := &handlers{Deps: d, limiter: newKeyLimiter(rl), metrics: metrics.Handler()}
	e.HTTPErrorHandler = ErrorHandler(d.Log)
	if d.DB != nil {
		watchDatabase(d.DB)
	}
	e.Use(observe, recoverPanic)
	for _, r := range routes() {
		limit := r.bodyLimit
		if limit == 0 {
			limit = defaultBodyLimit
		}
		mw := []echo.MiddlewareFunc{bodyLimit(limit)}
		switch r.auth {
		case authKey:
			mw = append(mw, h.requireKey)
		case authOperator:
			mw = append(mw, h.requireOperator)
		}
		handle := r.handler
		e.Add(r.method, echoPath(r.path), func(c echo.Context) error { return handle(h, c) }, mw...)
	}
}

// recoverPanic turns a handler's panic into an internal error, answered
// and logged by the error handler, instead of a dropped connection.
func recoverPanic(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) (err error) {
		defer func() {
			if r := recover(); r != nil {
				if r == http.ErrAbortHandler {
					panic(r)
				}
				err = &Error{Code: CodeInternal, Err: fmt.Errorf("api: panic: %v", r)}
			}
		}()
		return next(c)
	}
}

// observe records every request's count and latency under its route
// template ("unmatched" when no route matched).
func observe(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		start := time.Now()
		err := next(c)
		if err != nil {
			c.Error(err) // writes the problem now, so the status is known
		}
		route := c.Path()
		if route == "" || c.Response().Status == http.StatusNotFound && route == "/*" {
			route = "unmatched"
		}
		metrics.ObserveRequest(route, c.Request().Method, c.Response().Status, time.Since(start))
		return nil
	}
}

// bodyLimit rejects bodies larger than limit bytes with 413: at once when
// Content-Length says so, else as soon as the handler reads past limit.
func bodyLimit(limit int64) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			req := c.Request()
			if req.ContentLength > limit {
				return errorf(CodeTooLarge, "the body is larger than this route accepts (%d bytes)", limit)
			}
			req.Body = &limitedBody{r: req.Body, left: limit, limit: limit}
			return next(c)
		}
	}
}

// limitedBody fails a read past its limit with a CodeTooLarge error.
type limitedBody struct {
	r     io.ReadCloser
	left  int64
	limit int64
}

func (b *limitedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		// Probe one byte: a body of exactly limit bytes is fine.
		var one [1]byte
		n, err := b.r.Read(one[:])
		if n > 0 {
			return 0, errorf(CodeTooLarge, "the body is larger than this route accepts (%d bytes)", b.limit)
		}
		return 0, err
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.r.Read(p)
	b.left -= int64(n)
	return n, err
}

func (b *limitedBody) Close() error { return b.r.Close() }

// principal is the authenticated caller of a key route.
type principal struct {
	WorkspaceID int64
	KeyID       int64
}

const principalKey = "rebound.principal"

// workspaceID returns the workspace of the request's API key.
func workspaceID(c echo.Context) int64 {
	p, _ := c.Get(principalKey).(principal)
	return p.WorkspaceID
}

// errBadKey is the one answer to any key that does not authenticate, so a
// client cannot tell an unknown key from a revoked one by the response.
var errBadKey = errorf(CodeUnauthorized, "missing, unknown or revoked API key; send Authorization: Bearer <API key>")

// requireKey authenticates the Bearer API key, applies its rate limit and
// stores its principal.
func (h *handlers) requireKey(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		c.Response().Header().Set("WWW-Authenticate", `Bearer realm="rebound"`)
		hash, ok := hashAPIKey(bearerToken(c.Request().Header.Get(echo.HeaderAuthorization)))
		if !ok {
			return errBadKey
		}
		ctx := c.Request().Context()
		key, err := store.APIKeyByHash(ctx, h.DB, hash)
		if errors.Is(err, store.ErrNotFound) || err == nil && key.RevokedAt != nil {
			return errBadKey
		}
		if err != nil {
			return err
		}
		c.Response().Header().Del("WWW-Authenticate")
		now := h.Now()
		if ok, wait := h.limiter.allow(key.ID, now); !ok {
			return &Error{Code: CodeRateLimited, Detail: "the API key's rate limit is spent; retry after the Retry-After delay", RetryAfter: wait}
		}
		// last_used_at is kept to the minute: most requests find it fresh
		// in the row just read and write nothing.
		if key.LastUsedAt == nil || now.Sub(*key.LastUsedAt) >= store.KeyTouchInterval {
			if err := store.TouchAPIKey(ctx, h.DB, key.ID, now); err != nil {
				h.Log.Warn("api: record key use", "key_id", key.ID, "err", err)
			}
		}
		c.Set(principalKey, principal{WorkspaceID: key.WorkspaceID, KeyID: key.ID})
		return next(c)
	}
}

// requireOperator checks the Bearer operator token in constant time.
func (h *handlers) requireOperator(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		token := bearerToken(c.Request().Header.Get(echo.HeaderAuthorization))
		if h.OperatorToken == "" || subtle.ConstantTimeCompare([]byte(token), []byte(h.OperatorToken)) != 1 {
			c.Response().Header().Set("WWW-Authenticate", `Bearer realm="rebound-operator"`)
			return errorf(CodeUnauthorized, "operator routes need Authorization: Bearer <operator token>")
		}
		return next(c)
	}
}

// getOpenAPI serves openapi.yaml as embedded.
func (h *handlers) getOpenAPI(c echo.Context) error {
	return c.Blob(http.StatusOK, "application/yaml", rebound.OpenAPI)
}

// getMetrics serves the Prometheus registry.
func (h *handlers) getMetrics(c echo.Context) error {
	h.metrics.ServeHTTP(c.Response(), c.Request())
	return nil
}

func init() {
	errorTranslators = append(errorTranslators, func(err error) *Error {
		switch {
		case errors.Is(err, store.ErrNotFound):
			return &Error{Code: CodeNotFound, Detail: "no such resource in this workspace", Err: err}
		case errors.Is(err, store.ErrConflict):
			return &Error{Code: CodeConflict, Detail: "a unique field of this resource is already taken", Err: err}
		}
		return nil
	})
}
