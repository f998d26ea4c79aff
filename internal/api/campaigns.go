package api

import (
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/rebound-hq/rebound/internal/store"
)

var campaignStatuses = []string{"active", "paused", "archived"}

type campaignResponse struct {
	ID                        int64      `json:"id"`
	Name                      string     `json:"name"`
	ExternalID                *string    `json:"external_id"`
	Status                    string     `json:"status"`
	DeliverabilitySignalAt    *time.Time `json:"deliverability_signal_at"`
	DeliverabilitySignalLabel string     `json:"deliverability_signal_label"`
	CreatedAt                 time.Time  `json:"created_at"`
	UpdatedAt                 time.Time  `json:"updated_at"`
}

func toCampaignResponse(c store.Campaign) campaignResponse {
	return campaignResponse{ID: c.ID, Name: c.Name, ExternalID: c.ExternalID, Status: c.Status,
		DeliverabilitySignalAt: c.DeliverabilitySignalAt, DeliverabilitySignalLabel: c.DeliverabilitySignalLabel,
		CreatedAt: c.CreatedAt, UpdatedAt: c.UpdatedAt}
}

type campaignCreateRequest struct {
	Name       string  `json:"name"`
	ExternalID *string `json:"external_id"`
	Status     string  `json:"status"`
}

// campaignPatchRequest holds the fields of a PATCH; absent fields stay.
type campaignPatchRequest struct {
	Name       optional[string] `json:"name"`
	ExternalID optional[string] `json:"external_id"` // null clears it
	Status     optional[string] `json:"status"`
}

// Patch validates the request and returns the columns to write.
func (r campaignPatchRequest) Patch(now time.Time) (map[string]any, error) {
	var chk checks
	cols := map[string]any{}
	if r.Name.Set {
		name := strings.TrimSpace(r.Name.Value)
		chk.check(!r.Name.Null, "body", "name", "cannot be null")
		checkLen(&chk, "name", name, 1, 500)
		cols["name"] = name
	}
	patchExternalID(&chk, cols, r.ExternalID)
	if r.Status.Set {
		chk.check(!r.Status.Null && oneOf(r.Status.Value, campaignStatuses...), "body", "status",
			"must be one of "+strings.Join(campaignStatuses, ", "))
		cols["status"] = r.Status.Value
	}
	if err := chk.err(); err != nil {
		return nil, err
	}
	if len(cols) > 0 {
		cols["updated_at"] = now
	}
	return cols, nil
}

func (h *handlers) listCampaigns(c echo.Context) error {
	var chk checks
	p := parsePage(c, &chk)
	f := store.CampaignFilter{Status: queryEnum(c, &chk, "status", campaignStatuses...)}
	if err := chk.err(); err != nil {
		return err
	}
	rows, err := store.ListCampaigns(c.Request().Context(), h.DB, workspaceID(c), f, p.idPage(), p.Limit+1)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, pageOf(rows, p.Limit, func(r store.Campaign) cursor { return cursor{ID: r.ID} }, toCampaignResponse))
}

func (h *handlers) createCampaign(c echo.Context) error {
	var req campaignCreateRequest
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	req.Name = strings.TrimSpace(req.Name)
	var chk checks
	checkLen(&chk, "name", req.Name, 1, 500)
	if req.ExternalID != nil {
		checkLen(&chk, "external_id", *req.ExternalID, 1, 200)
	}
	if req.Status == "" {
		req.Status = "active"
	}
	chk.check(oneOf(req.Status, campaignStatuses...), "body", "status", "must be one of "+strings.Join(campaignStatuses, ", "))
	if err := chk.err(); err != nil {
		return err
	}
	row := store.Campaign{WorkspaceID: workspaceID(c), Name: req.Name, ExternalID: req.ExternalID, Status: req.Status, UpdatedAt: h.Now()}
	if err := store.CreateCampaign(c.Request().Context(), h.DB, &row); err != nil {
		return conflictField(err, "external_id", "another campaign of the workspace has this external ID")
	}
	return c.JSON(http.StatusCreated, toCampaignResponse(row))
}

func (h *handlers) getCampaign(c echo.Context) error {
	return getByID(h, c, "campaign_id", store.GetCampaign, toCampaignResponse)
}

func (h *handlers) updateCampaign(c echo.Context) error {
	id, err := pathID(c, "campaign_id")
	if err != nil {
		return err
	}
	var req campaignPatchRequest
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	cols, err := req.Patch(h.Now())
	if err != nil {
		return err
	}
	row, err := store.UpdateCampaign(c.Request().Context(), h.DB, workspaceID(c), id, cols)
	if err != nil {
		return conflictField(err, "external_id", "another campaign of the workspace has this external ID")
	}
	return c.JSON(http.StatusOK, toCampaignResponse(row))
}

func (h *handlers) deleteCampaign(c echo.Context) error {
	return deleteByID(h, c, "campaign_id", store.DeleteCampaign)
}
