package api

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/rebound-hq/rebound/internal/logging"
	"github.com/rebound-hq/rebound/internal/store"
)

// ProblemContentType is the media type of every error response (RFC 9457 §3).
const ProblemContentType = "application/problem+json"

// Problem is an RFC 9457 problem details object. Type is a relative URI,
// "/problems/<code>", one per Code; Errors names each request field at fault.
type Problem struct {
	Type   string       `json:"type"`
	Title  string       `json:"title"`
	Status int          `json:"status"`
	Detail string       `json:"detail,omitempty"`
	Code   Code         `json:"code"`
	Errors []FieldError `json:"errors,omitempty"`
}

// FieldError names one request field at fault. In is "body", "query",
// "path" or "header"; Field is the parameter name, or for a body a dotted
// path into the JSON document ("folders[1]", "leads[3].email").
type FieldError struct {
	In      string `json:"in"`
	Field   string `json:"field"`
	Message string `json:"message"`
}

// Code is the machine-readable kind of an API error. Each Code maps to one
// HTTP status in statusOf, the only table in the API that picks an error
// status.
type Code string

// The error codes the API answers with.
const (
	CodeInvalid          Code = "invalid_request"        // a field is missing, malformed or out of range
	CodeMalformed        Code = "malformed_body"         // the body is not valid JSON/CSV
	CodeUnauthorized     Code = "unauthorized"           // no, unknown or revoked credentials
	CodeNotFound         Code = "not_found"              // no such route or row in this workspace
	CodeMethodNotAllowed Code = "method_not_allowed"     // the route exists for other methods
	CodeConflict         Code = "conflict"               // a unique field is already taken
	CodeGone             Code = "gone"                   // the content existed and was removed (retention)
	CodeTooLarge         Code = "payload_too_large"      // body above the route's size limit
	CodeUnsupportedMedia Code = "unsupported_media_type" // Content-Type the route does not read
	CodeRateLimited      Code = "rate_limited"           // the API key's rate limit is spent
	CodeUnavailable      Code = "unavailable"            // a dependency (queue, mail server) failed
	CodeInternal         Code = "internal"               // anything else; details are logged, not sent
)

// statusOf maps each Code to its HTTP status and title.
var statusOf = map[Code]struct {
	status int
	title  string
}{
	CodeInvalid:          {http.StatusBadRequest, "Invalid request"},
	CodeMalformed:        {http.StatusBadRequest, "Malformed request body"},
	CodeUnauthorized:     {http.StatusUnauthorized, "Unauthorized"},
	CodeNotFound:         {http.StatusNotFound, "Not found"},
	CodeMethodNotAllowed: {http.StatusMethodNotAllowed, "Method not allowed"},
	CodeConflict:         {http.StatusConflict, "Conflict"},
	CodeGone:             {http.StatusGone, "Gone"},
	CodeTooLarge:         {http.StatusRequestEntityTooLarge, "Payload too large"},
	CodeUnsupportedMedia: {http.StatusUnsupportedMediaType, "Unsupported media type"},
	CodeRateLimited:      {http.StatusTooManyRequests, "Too many requests"},
	CodeUnavailable:      {http.StatusServiceUnavailable, "Service unavailable"},
	CodeInternal:         {http.StatusInternalServerError, "Internal server error"},
}

// Error is an error the API answers with a problem. Handlers and middleware
// return it (or a store/service error the handler below translates); they
// never write an error response themselves.
type Error struct {
	Code       Code
	Detail     string        // shown to the client; never internal error text
	Fields     []FieldError  // the fields at fault, for CodeInvalid
	RetryAfter time.Duration // for CodeRateLimited: sent as Retry-After
	Err        error         // the cause, logged for CodeInternal/CodeUnavailable
}

func (e *Error) Error() string {
	msg := "api: " + string(e.Code)
	if e.Detail != "" {
		msg += ": " + e.Detail
	}
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

func (e *Error) Unwrap() error { return e.Err }

var _ error = (*Error)(nil)

// errorf returns an *Error of the given code with a formatted client detail.
func errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Detail: fmt.Sprintf(format, args...)}
}

// invalidField returns a CodeInvalid error naming one field.
func invalidField(in, field, message string) *Error {
	return fieldError(CodeInvalid, in, field, message, nil)
}

// fieldError returns an error of code naming one field at fault (in
// "body", "query", ...), with its message as the detail too; cause, which
// may be nil, is kept for logging.
func fieldError(code Code, in, field, message string, cause error) *Error {
	return &Error{Code: code, Detail: in + " " + field + ": " + message,
		Fields: []FieldError{{In: in, Field: field, Message: message}}, Err: cause}
}

// notFound returns a CodeNotFound error for the named resource.
func notFound(resource string) *Error {
	return errorf(CodeNotFound, "%s not found", resource)
}

// checks collects field errors while a handler validates its input.
type checks struct {
	fields []FieldError
}

// add records that field (in "body", "query", ...) is at fault.
func (c *checks) add(in, field, message string) {
	c.fields = append(c.fields, FieldError{In: in, Field: field, Message: message})
}

// check records message for field when ok is false.
func (c *checks) check(ok bool, in, field, message string) {
	if !ok {
		c.add(in, field, message)
	}
}

// err returns nil when no field was at fault, else a CodeInvalid *Error
// naming them all.
func (c *checks) err() error {
	if len(c.fields) == 0 {
		return nil
	}
	detail := fmt.Sprintf("%s %s: %s", c.fields[0].In, c.fields[0].Field, c.fields[0].Message)
	if n := len(c.fields) - 1; n > 0 {
		detail += fmt.Sprintf(" (and %d more)", n)
	}
	return &Error{Code: CodeInvalid, Detail: detail, Fields: c.fields}
}

// errorTranslators turn the errors of other packages (store sentinels,
// service errors) into an *Error. Each returns nil when it does not know
// err. They are consulted in order by toAPIError; files that bring in a
// service add theirs in an init function.
var errorTranslators []func(err error) *Error

// toAPIError maps any error a handler returns to an *Error.
func toAPIError(err error) *Error {
	var apiErr *Error
	if errors.As(err, &apiErr) {
		return apiErr
	}
	for _, translate := range errorTranslators {
		if e := translate(err); e != nil {
			return e
		}
	}
	var he *echo.HTTPError
	if errors.As(err, &he) {
		return fromEchoError(he)
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return &Error{Code: CodeUnavailable, Detail: "the request was cancelled or timed out", Err: err}
	}
	return &Error{Code: CodeInternal, Err: err}
}

// fromEchoError maps the errors Echo itself raises (no route, wrong method,
// body limit, binder) to an *Error.
func fromEchoError(he *echo.HTTPError) *Error {
	detail := ""
	if s, ok := he.Message.(string); ok {
		detail = s
	}
	switch he.Code {
	case http.StatusNotFound:
		return &Error{Code: CodeNotFound, Detail: "no such route"}
	case http.StatusMethodNotAllowed:
		return &Error{Code: CodeMethodNotAllowed, Detail: "the route does not accept this method"}
	case http.StatusRequestEntityTooLarge:
		return &Error{Code: CodeTooLarge, Detail: "the request body is larger than this route accepts"}
	case http.StatusUnsupportedMediaType:
		return &Error{Code: CodeUnsupportedMedia, Detail: detail}
	case http.StatusUnauthorized:
		return &Error{Code: CodeUnauthorized, Detail: detail}
	case http.StatusTooManyRequests:
		return &Error{Code: CodeRateLimited, Detail: detail}
	case http.StatusBadRequest:
		return &Error{Code: CodeInvalid, Detail: detail, Err: he.Internal}
	}
	return &Error{Code: CodeInternal, Err: he}
}

// ErrorHandler is the Echo HTTPErrorHandler: the one place that picks an
// error status and writes an RFC 9457 problem. Internal errors are logged
// (through the request's logger, else base) with the request's route and
// answered with a generic detail.
func ErrorHandler(base *slog.Logger) echo.HTTPErrorHandler {
	return func(err error, c echo.Context) {
		if c.Response().Committed {
			return
		}
		log := logging.FromContextOr(c.Request().Context(), base)
		e := toAPIError(err)
		st, ok := statusOf[e.Code]
		if !ok {
			e = &Error{Code: CodeInternal, Err: e}
			st = statusOf[CodeInternal]
		}
		p := Problem{
			Type:   "/problems/" + string(e.Code),
			Title:  st.title,
			Status: st.status,
			Detail: e.Detail,
			Code:   e.Code,
			Errors: e.Fields,
		}
		switch e.Code {
		case CodeInternal:
			p.Detail = "an internal error occurred; it has been logged"
			log.Error("api: request failed", "method", c.Request().Method, "route", c.Path(), "err", err)
		case CodeUnavailable:
			log.Warn("api: dependency unavailable", "method", c.Request().Method, "route", c.Path(), "err", err)
		case CodeRateLimited:
			secs := int((e.RetryAfter + time.Second - 1) / time.Second)
			if secs < 1 {
				secs = 1
			}
			c.Response().Header().Set("Retry-After", strconv.Itoa(secs))
		}
		writeProblem(c, p, log)
	}
}

// writeProblem writes p as application/problem+json (a HEAD request gets the
// status and headers only).
func writeProblem(c echo.Context, p Problem, log *slog.Logger) {
	c.Response().Header().Set(echo.HeaderContentType, ProblemContentType)
	if c.Request().Method == http.MethodHead {
		if err := c.NoContent(p.Status); err != nil {
			log.Warn("api: write problem", "err", err)
		}
		return
	}
	c.Response().WriteHeader(p.Status)
	if err := jsonEncode(c.Response(), p); err != nil {
		log.Warn("api: write problem", "err", err)
	}
}

// conflictField turns a store.ErrConflict from err into a CodeConflict
// error naming field; other errors pass through.
func conflictField(err error, field, message string) error {
	if !errors.Is(err, store.ErrConflict) {
		return err
	}
	return fieldError(CodeConflict, "body", field, message, err)
}
