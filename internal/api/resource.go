package api

import (
	"context"
	"net/http"

	"github.com/labstack/echo/v4"
	"gorm.io/gorm"
)

// The helpers below serve the handlers of the workspace resources that only
// read or delete one row by the ID in their path, and the PATCH field they
// share.

// getByID answers a GET of one row of the caller's workspace: the positive
// ID in path parameter param, read by get (a store function, which returns
// store.ErrNotFound for a row of another workspace) and answered 200 with
// the JSON that to makes of it.
func getByID[R, T any](h *handlers, c echo.Context, param string,
	get func(ctx context.Context, db *gorm.DB, workspaceID, id int64) (R, error), to func(R) T) error {
	id, err := pathID(c, param)
	if err != nil {
		return err
	}
	row, err := get(c.Request().Context(), h.DB, workspaceID(c), id)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, to(row))
}

// deleteByID answers a DELETE of one row of the caller's workspace: the
// positive ID in path parameter param, removed by del (a store function),
// answered 204.
func deleteByID(h *handlers, c echo.Context, param string,
	del func(ctx context.Context, db *gorm.DB, workspaceID, id int64) error) error {
	id, err := pathID(c, param)
	if err != nil {
		return err
	}
	if err := del(c.Request().Context(), h.DB, workspaceID(c), id); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}

// patchExternalID validates the external_id of a PATCH (1 to 200
// characters; null clears it) and sets its column when it is present.
func patchExternalID(chk *checks, cols map[string]any, v optional[string]) {
	if !v.Set {
		return
	}
	if v.Null {
		cols["external_id"] = nil
		return
	}
	checkLen(chk, "external_id", v.Value, 1, 200)
	cols["external_id"] = v.Value
}
