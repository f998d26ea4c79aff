package api

import (
	"bytes"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"
)

// TestErrorHandlerLogsToBaseWithoutRequestLogger checks that an internal
// error of a request that carries no logger (no requestContext middleware)
// is logged through the handler's base logger, not slog's default.
func TestErrorHandlerLogsToBaseWithoutRequestLogger(t *testing.T) {
	var buf bytes.Buffer
	base := slog.New(slog.NewTextHandler(&buf, nil))
	rec := httptest.NewRecorder()
	c := echo.New().NewContext(httptest.NewRequest(http.MethodGet, "/x", nil), rec)
	ErrorHandler(base)(errors.New("boom"), c)
	if rec.Code != http.StatusInternalServerError {
		t.Errorf("status = %d, want 500", rec.Code)
	}
	if !strings.Contains(buf.String(), "api: request failed") || !strings.Contains(buf.String(), "boom") {
		t.Errorf("base logger got %q, want the internal error", buf.String())
	}
}
