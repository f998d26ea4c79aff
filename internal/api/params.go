package api

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/labstack/echo/v4"
)

// pathID parses the positive integer path parameter name.
func pathID(c echo.Context, name string) (int64, error) {
	id, err := strconv.ParseInt(c.Param(name), 10, 64)
	if err != nil || id < 1 {
		return 0, invalidField("path", name, "must be a positive integer")
	}
	return id, nil
}

// queryID parses the optional positive integer query parameter name (0
// when absent).
func queryID(c echo.Context, chk *checks, name string) int64 {
	s := c.QueryParam(name)
	if s == "" {
		return 0
	}
	id, err := strconv.ParseInt(s, 10, 64)
	if err != nil || id < 1 {
		chk.add("query", name, "must be a positive integer")
		return 0
	}
	return id
}

// queryEnum reads the optional query parameter name, which must be one of
// allowed.
func queryEnum(c echo.Context, chk *checks, name string, allowed ...string) string {
	s := c.QueryParam(name)
	if s == "" || oneOf(s, allowed...) {
		return s
	}
	chk.add("query", name, "must be one of "+strings.Join(allowed, ", "))
	return ""
}

// queryString reads the optional query parameter name of at most max
// characters.
func queryString(c echo.Context, chk *checks, name string, max int) string {
	s := c.QueryParam(name)
	if utf8.RuneCountInString(s) > max {
		chk.add("query", name, "must be at most "+strconv.Itoa(max)+" characters")
		return ""
	}
	return s
}

// queryTime reads the optional RFC 3339 query parameter name.
func queryTime(c echo.Context, chk *checks, name string) time.Time {
	s := c.QueryParam(name)
	if s == "" {
		return time.Time{}
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		chk.add("query", name, "must be an RFC 3339 date-time such as 2026-01-31T12:00:00Z")
		return time.Time{}
	}
	return t
}

// checkLen records a field error unless s has from min to max characters.
func checkLen(chk *checks, field, s string, min, max int) {
	n := utf8.RuneCountInString(s)
	switch {
	case n < min && min == 1:
		chk.add("body", field, "is required")
	case n < min:
		chk.add("body", field, "must be at least "+strconv.Itoa(min)+" characters")
	case n > max:
		chk.add("body", field, "must be at most "+strconv.Itoa(max)+" characters")
	}
}

// oneOf reports whether s is one of allowed.
func oneOf(s string, allowed ...string) bool { return slices.Contains(allowed, s) }

// optional is a JSON field that tells "absent" from "null" from a value,
// for PATCH bodies where null clears a field.
type optional[T any] struct {
	Set   bool // the field was present
	Null  bool // it was null
	Value T
}

// UnmarshalJSON implements json.Unmarshaler.
func (o *optional[T]) UnmarshalJSON(b []byte) error {
	o.Set = true
	if string(b) == "null" {
		o.Null = true
		return nil
	}
	return json.Unmarshal(b, &o.Value)
}
