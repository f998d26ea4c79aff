package api

import (
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/rebound-hq/rebound/internal/store"
	"github.com/rebound-hq/rebound/internal/tracking"
)

type suppressionResponse struct {
	ID             int64     `json:"id"`
	Email          string    `json:"email"`
	Reason         string    `json:"reason"`
	Source         string    `json:"source"`
	SourceBounceID *int64    `json:"source_bounce_id"`
	CreatedAt      time.Time `json:"created_at"`
}

func toSuppressionResponse(s store.Suppression) suppressionResponse {
	return suppressionResponse{ID: s.ID, Email: s.Email, Reason: s.Reason, Source: s.Source,
		SourceBounceID: s.SourceEventID, CreatedAt: s.CreatedAt}
}

func (h *handlers) listSuppressions(c echo.Context) error {
	var chk checks
	p := parsePage(c, &chk)
	chk.check(p.After == nil || p.After.At != nil, "query", "cursor", "is not a cursor of this list")
	source := queryEnum(c, &chk, "source", "bounce", "complaint", "manual")
	if err := chk.err(); err != nil {
		return err
	}
	rows, err := store.ListSuppressions(c.Request().Context(), h.DB, workspaceID(c), source, p.timePage(), p.Limit+1)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, pageOf(rows, p.Limit, func(s store.Suppression) cursor {
		t := s.CreatedAt
		return cursor{At: &t, ID: s.ID}
	}, toSuppressionResponse))
}

func (h *handlers) createSuppression(c echo.Context) error {
	var req struct {
		Email string `json:"email"`
	}
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	email, msg := normalizeEmail(req.Email)
	if msg != "" {
		return invalidField("body", "email", msg)
	}
	row, created, err := store.AddSuppression(c.Request().Context(), h.DB,
		store.Suppression{WorkspaceID: workspaceID(c), Email: email, Reason: "manual", Source: "manual"})
	if err != nil {
		return err
	}
	status := http.StatusOK
	if created {
		status = http.StatusCreated
	}
	return c.JSON(status, toSuppressionResponse(row))
}

func (h *handlers) checkSuppression(c echo.Context) error {
	email, msg := normalizeEmail(c.QueryParam("email"))
	if msg != "" {
		return invalidField("query", "email", msg)
	}
	row, err := store.SuppressionByEmail(c.Request().Context(), h.DB, workspaceID(c), email)
	resp := struct {
		Email       string               `json:"email"`
		Suppressed  bool                 `json:"suppressed"`
		Suppression *suppressionResponse `json:"suppression"`
	}{Email: email}
	switch {
	case errors.Is(err, store.ErrNotFound):
	case err != nil:
		return err
	default:
		s := toSuppressionResponse(row)
		resp.Suppressed, resp.Suppression = true, &s
	}
	return c.JSON(http.StatusOK, resp)
}

func (h *handlers) deleteSuppression(c echo.Context) error {
	return deleteByID(h, c, "suppression_id", store.DeleteSuppression)
}

// policyOverridesJSON are the workspace's overrides; null keeps a default.
type policyOverridesJSON struct {
	SoftBounceLimit          *int  `json:"soft_bounce_limit"`
	BackoffBaseSeconds       *int  `json:"backoff_base_seconds"`
	BackoffCapSeconds        *int  `json:"backoff_cap_seconds"`
	StopOnHard               *bool `json:"stop_on_hard"`
	SuppressOnAddressInvalid *bool `json:"suppress_on_address_invalid"`
	SuppressOnComplaint      *bool `json:"suppress_on_complaint"`
	SuppressOnAnyHard        *bool `json:"suppress_on_any_hard"`
}

type policyValuesJSON struct {
	SoftBounceLimit          int  `json:"soft_bounce_limit"`
	BackoffBaseSeconds       int  `json:"backoff_base_seconds"`
	BackoffCapSeconds        int  `json:"backoff_cap_seconds"`
	StopOnHard               bool `json:"stop_on_hard"`
	SuppressOnAddressInvalid bool `json:"suppress_on_address_invalid"`
	SuppressOnComplaint      bool `json:"suppress_on_complaint"`
	SuppressOnAnyHard        bool `json:"suppress_on_any_hard"`
}

type policyResponse struct {
	Overrides policyOverridesJSON `json:"overrides"`
	Effective policyValuesJSON    `json:"effective"`
	UpdatedAt *time.Time          `json:"updated_at"`
}

// toPolicyResponse shows the overrides and the policy tracking applies.
func toPolicyResponse(ps store.PolicySettings) policyResponse {
	p := tracking.DefaultPolicy().WithSettings(ps)
	r := policyResponse{
		Overrides: policyOverridesJSON{SoftBounceLimit: ps.SoftBounceLimit, BackoffBaseSeconds: ps.BackoffBaseSeconds,
			BackoffCapSeconds: ps.BackoffCapSeconds, StopOnHard: ps.StopOnHard,
			SuppressOnAddressInvalid: ps.SuppressOnAddressInvalid, SuppressOnComplaint: ps.SuppressOnComplaint,
			SuppressOnAnyHard: ps.SuppressOnAnyHard},
		Effective: policyValuesJSON{SoftBounceLimit: p.SoftBounceLimit, BackoffBaseSeconds: int(p.BackoffBase / time.Second),
			BackoffCapSeconds: int(p.BackoffCap / time.Second), StopOnHard: p.StopOnHard,
			SuppressOnAddressInvalid: p.SuppressOnAddressInvalid, SuppressOnComplaint: p.SuppressOnComplaint,
			SuppressOnAnyHard: p.SuppressOnAnyHard},
	}
	if !ps.UpdatedAt.IsZero() {
		t := ps.UpdatedAt
		r.UpdatedAt = &t
	}
	return r
}

func (h *handlers) getPolicy(c echo.Context) error {
	ps, err := store.GetPolicySettings(c.Request().Context(), h.DB, workspaceID(c))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, toPolicyResponse(ps))
}

func (h *handlers) putPolicy(c echo.Context) error {
	var req policyOverridesJSON
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	var chk checks
	inRange := func(field string, v *int, lo, hi int) {
		chk.check(v == nil || *v >= lo && *v <= hi, "body", field, "must be null or from "+strconv.Itoa(lo)+" to "+strconv.Itoa(hi))
	}
	inRange("soft_bounce_limit", req.SoftBounceLimit, 1, 100)
	inRange("backoff_base_seconds", req.BackoffBaseSeconds, 1, 2592000)
	inRange("backoff_cap_seconds", req.BackoffCapSeconds, 1, 2592000)
	p := tracking.DefaultPolicy()
	base, cap := int(p.BackoffBase/time.Second), int(p.BackoffCap/time.Second)
	if req.BackoffBaseSeconds != nil {
		base = *req.BackoffBaseSeconds
	}
	if req.BackoffCapSeconds != nil {
		cap = *req.BackoffCapSeconds
	}
	chk.check(cap >= base, "body", "backoff_cap_seconds", "must not be below backoff_base_seconds (with defaults applied)")
	if err := chk.err(); err != nil {
		return err
	}
	ps := store.PolicySettings{WorkspaceID: workspaceID(c), SoftBounceLimit: req.SoftBounceLimit,
		BackoffBaseSeconds: req.BackoffBaseSeconds, BackoffCapSeconds: req.BackoffCapSeconds,
		StopOnHard: req.StopOnHard, SuppressOnAddressInvalid: req.SuppressOnAddressInvalid,
		SuppressOnComplaint: req.SuppressOnComplaint, SuppressOnAnyHard: req.SuppressOnAnyHard, UpdatedAt: h.Now()}
	ctx := c.Request().Context()
	if err := store.SavePolicySettings(ctx, h.DB, workspaceID(c), ps); err != nil {
		return err
	}
	saved, err := store.GetPolicySettings(ctx, h.DB, workspaceID(c))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, toPolicyResponse(saved))
}
