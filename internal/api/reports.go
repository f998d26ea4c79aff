package api

import (
	"bytes"
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/rebound-hq/rebound/internal/report"
)

// getCampaignBounceReport serves GET /v1/campaigns/{campaign_id}/reports/bounces.
func (h *handlers) getCampaignBounceReport(c echo.Context) error {
	id, err := pathID(c, "campaign_id")
	if err != nil {
		return err
	}
	return h.bounceReport(c, id, "campaign-"+strconv.FormatInt(id, 10)+"-bounces.csv")
}

// getWorkspaceBounceReport serves GET /v1/reports/bounces.
func (h *handlers) getWorkspaceBounceReport(c echo.Context) error {
	return h.bounceReport(c, 0, "workspace-bounces.csv")
}

// bounceReport validates tz, from, to and format, reads the report of
// campaign (0: every campaign) and answers it as JSON, or as CSV when
// format=csv or, without format, when Accept names text/csv.
func (h *handlers) bounceReport(c echo.Context, campaign int64, filename string) error {
	var chk checks
	asCSV := false
	switch f := queryEnum(c, &chk, "format", "json", "csv"); f {
	case "csv":
		asCSV = true
	case "":
		asCSV = strings.Contains(c.Request().Header.Get(echo.HeaderAccept), "text/csv")
	}
	zone, err := report.ParseZone(c.QueryParam("tz"))
	if err != nil {
		chk.add("query", "tz", "must be an IANA time zone name such as Europe/Paris")
	}
	if err := chk.err(); err != nil {
		return err
	}
	from, to, field, err := report.Days(c.QueryParam("from"), c.QueryParam("to"), zone, h.Now())
	if err != nil {
		return invalidField("query", field, err.Error())
	}
	js, r, err := report.ServiceFor(h.DB).BouncesJSON(c.Request().Context(), report.Query{
		WorkspaceID: workspaceID(c), CampaignID: campaign, Zone: zone, From: from, To: to,
	})
	switch {
	case errors.Is(err, report.ErrNotFound):
		return notFound("campaign")
	case err != nil:
		return err
	}
	if !asCSV {
		// A known length lets net/http send the (cached) body in one write
		// instead of chunks.
		c.Response().Header().Set(echo.HeaderContentLength, strconv.Itoa(len(js)))
		return c.JSONBlob(http.StatusOK, js)
	}
	var buf bytes.Buffer
	if err := report.WriteCSV(&buf, r); err != nil {
		return err
	}
	c.Response().Header().Set("Content-Disposition", `attachment; filename="`+filename+`"`)
	c.Response().Header().Set(echo.HeaderContentLength, strconv.Itoa(buf.Len()))
	return c.Blob(http.StatusOK, "text/csv; charset=utf-8", buf.Bytes())
}
