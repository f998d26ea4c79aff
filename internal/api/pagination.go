package api

import (
	"encoding/base64"
	"encoding/json"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/rebound-hq/rebound/internal/store"
)

// Page sizes for every list route.
const (
	defaultPageLimit = 50
	maxPageLimit     = 500
)

// cursor is the position after the last row of a page. Lists are ordered
// newest first by (At, ID) when the list sorts by a time, else by ID alone;
// both are unique, so the order is stable while rows are added.
type cursor struct {
	At *time.Time `json:"t,omitempty"`
	ID int64      `json:"i"`
}

// page is the parsed pagination of a list request.
type page struct {
	Limit int
	After *cursor // nil on the first page
}

// parsePage reads the limit and cursor query parameters into c's checks.
func parsePage(c echo.Context, chk *checks) page {
	p := page{Limit: defaultPageLimit}
	if s := c.QueryParam("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > maxPageLimit {
			chk.add("query", "limit", "must be an integer from 1 to "+strconv.Itoa(maxPageLimit))
		} else {
			p.Limit = n
		}
	}
	if s := c.QueryParam("cursor"); s != "" {
		cur, ok := decodeCursor(s)
		if !ok {
			chk.add("query", "cursor", "is not a cursor this API returned")
		} else {
			p.After = cur
		}
	}
	return p
}

// encodeCursor returns the opaque text of cur.
func encodeCursor(cur cursor) string {
	b, _ := json.Marshal(cur) // a struct of a time and an int cannot fail
	return base64.RawURLEncoding.EncodeToString(b)
}

// decodeCursor parses a cursor encodeCursor made.
func decodeCursor(s string) (*cursor, bool) {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return nil, false
	}
	var cur cursor
	if err := json.Unmarshal(b, &cur); err != nil || cur.ID <= 0 {
		return nil, false
	}
	return &cur, true
}

// listResponse is the body of every list route: one page of items and the
// cursor of the next page (null on the last page).
type listResponse[T any] struct {
	Data       []T     `json:"data"`
	NextCursor *string `json:"next_cursor"`
}

// pageOf builds a listResponse from up to limit+1 fetched rows: the extra
// row, when present, only tells that a next page exists. key gives the
// cursor of a row; conv converts it for the response.
func pageOf[R any, T any](rows []R, limit int, key func(R) cursor, conv func(R) T) listResponse[T] {
	resp := listResponse[T]{Data: make([]T, 0, min(len(rows), limit))}
	more := len(rows) > limit
	if more {
		rows = rows[:limit]
	}
	for _, r := range rows {
		resp.Data = append(resp.Data, conv(r))
	}
	if more && len(rows) > 0 {
		s := encodeCursor(key(rows[len(rows)-1]))
		resp.NextCursor = &s
	}
	return resp
}

// idPage returns the store position of an ID-ordered list.
func (p page) idPage() *store.Page {
	if p.After == nil {
		return nil
	}
	return &store.Page{ID: p.After.ID}
}

// timePage returns the store position of a (time, ID)-ordered list; a
// cursor without a time is rejected by the caller's checks beforehand.
func (p page) timePage() *store.Page {
	if p.After == nil {
		return nil
	}
	return &store.Page{At: p.After.At, ID: p.After.ID}
}
