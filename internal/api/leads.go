package api

import (
	"bytes"
	"encoding/csv"
	"errors"
	"io"
	"net/http"
	"net/mail"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"github.com/rebound-hq/rebound/internal/store"
)

var leadStatuses = []string{store.LeadActive, store.LeadStopped, store.LeadCompleted, store.LeadPaused}

// maxImportRows caps a lead import or a bulk sent-message registration.
const maxImportRows = 10000

type leadResponse struct {
	ID                     int64      `json:"id"`
	CampaignID             int64      `json:"campaign_id"`
	Email                  string     `json:"email"`
	ExternalID             *string    `json:"external_id"`
	Status                 string     `json:"status"`
	ConsecutiveSoftBounces int        `json:"consecutive_soft_bounces"`
	RetryAfter             *time.Time `json:"retry_after"`
	StopReason             string     `json:"stop_reason"`
	StoppedAt              *time.Time `json:"stopped_at"`
	BounceCount            int        `json:"bounce_count"`
	LastSentAt             *time.Time `json:"last_sent_at"`
	LastEventAt            *time.Time `json:"last_event_at"`
	CreatedAt              time.Time  `json:"created_at"`
	UpdatedAt              time.Time  `json:"updated_at"`
}

func toLeadResponse(l store.Lead) leadResponse {
	return leadResponse{ID: l.ID, CampaignID: l.CampaignID, Email: l.Email, ExternalID: l.ExternalID,
		Status: l.Status, ConsecutiveSoftBounces: l.ConsecutiveSoftBounces, RetryAfter: l.RetryAfter,
		StopReason: l.StopReason, StoppedAt: l.StoppedAt, BounceCount: l.BounceCount,
		LastSentAt: l.LastSentAt, LastEventAt: l.LastEventAt, CreatedAt: l.CreatedAt, UpdatedAt: l.UpdatedAt}
}

// normalizeEmail checks that s is one bare address (RFC 5322 addr-spec,
// no display name) and returns it in lower case, or a message saying why
// it is not.
func normalizeEmail(s string) (string, string) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", "is required"
	}
	if len(s) > 320 {
		return "", "must be at most 320 characters"
	}
	a, err := mail.ParseAddress(s)
	if err != nil || a.Name != "" || a.Address != s || !strings.Contains(s, "@") {
		return "", "must be an email address such as name@example.com"
	}
	at := strings.LastIndexByte(s, '@')
	if at == 0 || at == len(s)-1 || !strings.Contains(s[at+1:], ".") && s[at+1:] != "localhost" {
		return "", "must be an email address such as name@example.com"
	}
	return strings.ToLower(s), ""
}

type leadCreateRequest struct {
	CampaignID int64   `json:"campaign_id"`
	Email      string  `json:"email"`
	ExternalID *string `json:"external_id"`
}

type leadPatchRequest struct {
	Status     optional[string] `json:"status"`
	StopReason optional[string] `json:"stop_reason"`
	ExternalID optional[string] `json:"external_id"`
}

// Patch validates the request against the lead's current state and
// returns the columns to write.
func (r leadPatchRequest) Patch(cur store.Lead, now time.Time) (map[string]any, error) {
	var chk checks
	cols := map[string]any{}
	if r.Status.Set {
		chk.check(!r.Status.Null && oneOf(r.Status.Value, leadStatuses...), "body", "status",
			"must be one of "+strings.Join(leadStatuses, ", "))
		cols["status"] = r.Status.Value
		switch {
		case r.Status.Value == store.LeadStopped && cur.Status != store.LeadStopped:
			reason := "manual"
			if r.StopReason.Set && !r.StopReason.Null && r.StopReason.Value != "" {
				reason = r.StopReason.Value
			}
			cols["stop_reason"] = reason
			cols["stopped_at"] = now
		case r.Status.Value != store.LeadStopped:
			cols["stop_reason"] = ""
			cols["stopped_at"] = nil
			if r.Status.Value == store.LeadActive {
				cols["consecutive_soft_bounces"] = 0
				cols["retry_after"] = nil
			}
		}
	}
	if r.StopReason.Set {
		checkLen(&chk, "stop_reason", r.StopReason.Value, 0, 200)
		chk.check(r.Status.Set && r.Status.Value == store.LeadStopped, "body", "stop_reason",
			"may only be sent with status stopped")
	}
	patchExternalID(&chk, cols, r.ExternalID)
	if err := chk.err(); err != nil {
		return nil, err
	}
	if len(cols) > 0 {
		cols["updated_at"] = now
	}
	return cols, nil
}

func (h *handlers) listLeads(c echo.Context) error {
	var chk checks
	p := parsePage(c, &chk)
	f := store.LeadFilter{
		CampaignID: queryID(c, &chk, "campaign_id"),
		Status:     queryEnum(c, &chk, "status", leadStatuses...),
		Email:      strings.ToLower(strings.TrimSpace(queryString(c, &chk, "email", 320))),
	}
	if err := chk.err(); err != nil {
		return err
	}
	rows, err := store.ListLeads(c.Request().Context(), h.DB, workspaceID(c), f, p.idPage(), p.Limit+1)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, pageOf(rows, p.Limit, func(r store.Lead) cursor { return cursor{ID: r.ID} }, toLeadResponse))
}

// campaignOf checks that campaignID is a campaign of the workspace; a
// missing one is a field error of the request, named by in and field.
func (h *handlers) campaignOf(c echo.Context, campaignID int64, in, field string) error {
	_, err := store.GetCampaign(c.Request().Context(), h.DB, workspaceID(c), campaignID)
	if errors.Is(err, store.ErrNotFound) {
		return fieldError(CodeNotFound, in, field, "no such campaign in this workspace", err)
	}
	return err
}

func (h *handlers) createLead(c echo.Context) error {
	var req leadCreateRequest
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	var chk checks
	chk.check(req.CampaignID > 0, "body", "campaign_id", "is required (a positive integer)")
	email, msg := normalizeEmail(req.Email)
	chk.check(msg == "", "body", "email", msg)
	if req.ExternalID != nil {
		checkLen(&chk, "external_id", *req.ExternalID, 1, 200)
	}
	if err := chk.err(); err != nil {
		return err
	}
	if err := h.campaignOf(c, req.CampaignID, "body", "campaign_id"); err != nil {
		return err
	}
	row := store.Lead{WorkspaceID: workspaceID(c), CampaignID: req.CampaignID, Email: email,
		ExternalID: req.ExternalID, Status: store.LeadActive, UpdatedAt: h.Now()}
	if err := store.CreateLead(c.Request().Context(), h.DB, &row); err != nil {
		if !errors.Is(err, store.ErrConflict) {
			return err
		}
		byEmail, _, lookErr := store.ExistingLeadKeys(c.Request().Context(), h.DB, row.WorkspaceID, row.CampaignID, []string{email}, nil)
		if lookErr == nil && !byEmail[email] && req.ExternalID != nil {
			return conflictField(err, "external_id", "another lead of the campaign has this external ID")
		}
		return conflictField(err, "email", "the campaign already has a lead with this address")
	}
	return c.JSON(http.StatusCreated, toLeadResponse(row))
}

func (h *handlers) getLead(c echo.Context) error {
	return getByID(h, c, "lead_id", store.GetLead, toLeadResponse)
}

func (h *handlers) updateLead(c echo.Context) error {
	id, err := pathID(c, "lead_id")
	if err != nil {
		return err
	}
	var req leadPatchRequest
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	ctx := c.Request().Context()
	cur, err := store.GetLead(ctx, h.DB, workspaceID(c), id)
	if err != nil {
		return err
	}
	cols, err := req.Patch(cur, h.Now())
	if err != nil {
		return err
	}
	row, err := store.UpdateLead(ctx, h.DB, workspaceID(c), id, cols)
	if err != nil {
		return conflictField(err, "external_id", "another lead of the campaign has this external ID")
	}
	return c.JSON(http.StatusOK, toLeadResponse(row))
}

func (h *handlers) deleteLead(c echo.Context) error {
	return deleteByID(h, c, "lead_id", store.DeleteLead)
}

// importRow is one lead of an import, as read from JSON or CSV.
type importRow struct {
	Email      string `json:"email"`
	ExternalID string `json:"external_id"`
}

type leadImportRequest struct {
	CampaignID int64       `json:"campaign_id"`
	Leads      []importRow `json:"leads"`
}

// rowError is one row of an import that was not imported. Row is 1-based
// among the data rows.
type rowError struct {
	Row     int    `json:"row"`
	Field   string `json:"field"`
	Message string `json:"message"`
}

// importReport is the answer to a bulk request.
type importReport struct {
	Received int        `json:"received"`
	Created  int        `json:"created"`
	Existing int        `json:"existing"`
	Failed   int        `json:"failed"`
	Errors   []rowError `json:"errors"`
}

func (h *handlers) importLeads(c echo.Context) error {
	var campaignID int64
	var rows []importRow
	switch mediaType(c) {
	case echo.MIMEApplicationJSON:
		var req leadImportRequest
		if err := decodeJSONFrom(c.Request().Body, &req); err != nil {
			return err
		}
		var chk checks
		chk.check(req.CampaignID > 0, "body", "campaign_id", "is required (a positive integer)")
		chk.check(len(req.Leads) > 0, "body", "leads", "must hold at least one lead")
		chk.check(len(req.Leads) <= maxImportRows, "body", "leads", "must hold at most 10000 leads")
		if err := chk.err(); err != nil {
			return err
		}
		campaignID, rows = req.CampaignID, req.Leads
		if err := h.campaignOf(c, campaignID, "body", "campaign_id"); err != nil {
			return err
		}
	case "text/csv":
		var chk checks
		campaignID = queryID(c, &chk, "campaign_id")
		chk.check(c.QueryParam("campaign_id") != "", "query", "campaign_id", "is required with a CSV body")
		if err := chk.err(); err != nil {
			return err
		}
		body, err := readBody(c)
		if err != nil {
			return err
		}
		if rows, err = parseLeadCSV(body); err != nil {
			return err
		}
		if err := h.campaignOf(c, campaignID, "query", "campaign_id"); err != nil {
			return err
		}
	default:
		return errorf(CodeUnsupportedMedia, "the body must be application/json or text/csv")
	}
	report, err := h.importLeadRows(c, campaignID, rows)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, report)
}

// parseLeadCSV reads a CSV body whose header names an email column and
// optionally an external_id column.
func parseLeadCSV(body []byte) ([]importRow, error) {
	body = bytes.TrimPrefix(body, []byte("\xef\xbb\xbf")) // a spreadsheet's UTF-8 BOM
	r := csv.NewReader(bytes.NewReader(body))
	r.FieldsPerRecord = -1
	r.TrimLeadingSpace = true
	header, err := r.Read()
	if errors.Is(err, io.EOF) {
		return nil, invalidField("body", "header", "the CSV body is empty; its first record must name an email column")
	}
	if err != nil {
		return nil, errorf(CodeMalformed, "invalid CSV: %v", csvMessage(err))
	}
	emailCol, extCol := -1, -1
	for i, name := range header {
		switch strings.ToLower(strings.TrimSpace(name)) {
		case "email":
			emailCol = i
		case "external_id":
			extCol = i
		}
	}
	if emailCol < 0 {
		return nil, invalidField("body", "header", "the CSV header must name an email column")
	}
	var rows []importRow
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, errorf(CodeMalformed, "invalid CSV: %v", csvMessage(err))
		}
		if len(rows) == maxImportRows {
			return nil, invalidField("body", "rows", "a CSV import holds at most 10000 rows")
		}
		var row importRow
		if emailCol < len(rec) {
			row.Email = rec[emailCol]
		}
		if extCol >= 0 && extCol < len(rec) {
			row.ExternalID = strings.TrimSpace(rec[extCol])
		}
		rows = append(rows, row)
	}
	if len(rows) == 0 {
		return nil, invalidField("body", "rows", "the CSV body holds a header but no rows")
	}
	return rows, nil
}

// csvMessage describes a CSV parse error by line, without echoing data.
func csvMessage(err error) string {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return "line " + strconv.Itoa(pe.Line) + ": " + pe.Err.Error()
	}
	return "unreadable"
}

// importLeadRows validates each row and inserts the valid, new ones.
func (h *handlers) importLeadRows(c echo.Context, campaignID int64, rows []importRow) (importReport, error) {
	rep := importReport{Received: len(rows), Errors: []rowError{}}
	type cand struct {
		row   int
		email string
		ext   string
	}
	var cands []cand
	seenEmail := map[string]bool{}
	seenExt := map[string]int{}
	for i, r := range rows {
		n := i + 1
		email, msg := normalizeEmail(r.Email)
		if msg != "" {
			rep.Errors = append(rep.Errors, rowError{Row: n, Field: "email", Message: msg})
			continue
		}
		ext := strings.TrimSpace(r.ExternalID)
		if utf8.RuneCountInString(ext) > 200 {
			rep.Errors = append(rep.Errors, rowError{Row: n, Field: "external_id", Message: "must be at most 200 characters"})
			continue
		}
		if seenEmail[email] {
			rep.Existing++
			continue
		}
		if ext != "" {
			if first, dup := seenExt[ext]; dup {
				rep.Errors = append(rep.Errors, rowError{Row: n, Field: "external_id",
					Message: "row " + strconv.Itoa(first) + " of this request has the same external ID"})
				continue
			}
			seenExt[ext] = n
		}
		seenEmail[email] = true
		cands = append(cands, cand{row: n, email: email, ext: ext})
	}
	emails := make([]string, 0, len(cands))
	var exts []string
	for _, k := range cands {
		emails = append(emails, k.email)
		if k.ext != "" {
			exts = append(exts, k.ext)
		}
	}
	ctx := c.Request().Context()
	ws := workspaceID(c)
	haveEmail, haveExt, err := store.ExistingLeadKeys(ctx, h.DB, ws, campaignID, emails, exts)
	if err != nil {
		return rep, err
	}
	now := h.Now()
	var insert []store.Lead
	for _, k := range cands {
		switch {
		case haveEmail[k.email]:
			rep.Existing++
		case k.ext != "" && haveExt[k.ext]:
			rep.Errors = append(rep.Errors, rowError{Row: k.row, Field: "external_id",
				Message: "another lead of the campaign has this external ID"})
		default:
			l := store.Lead{WorkspaceID: ws, CampaignID: campaignID, Email: k.email, Status: store.LeadActive, UpdatedAt: now}
			if k.ext != "" {
				ext := k.ext
				l.ExternalID = &ext
			}
			insert = append(insert, l)
		}
	}
	n, err := store.InsertLeads(ctx, h.DB, insert)
	if err != nil {
		return rep, err
	}
	rep.Created = int(n)
	rep.Existing += len(insert) - int(n) // added by a concurrent writer meanwhile
	rep.Failed = len(rep.Errors)
	return rep, nil
}

type activityResponse struct {
	ID            int64     `json:"id"`
	LeadID        int64     `json:"lead_id"`
	CampaignID    int64     `json:"campaign_id"`
	Activity      string    `json:"activity"`
	BounceID      *int64    `json:"bounce_id"`
	SentMessageID *int64    `json:"sent_message_id"`
	Summary       string    `json:"summary"`
	Effect        string    `json:"effect"`
	OccurredAt    time.Time `json:"occurred_at"`
}

func toActivityResponse(a store.LeadActivity) activityResponse {
	return activityResponse{ID: a.ID, LeadID: a.LeadID, CampaignID: a.CampaignID, Activity: a.Activity,
		BounceID: a.BounceEventID, SentMessageID: a.SentMessageID, Summary: a.Summary, Effect: a.Effect,
		OccurredAt: a.OccurredAt}
}

func (h *handlers) listLeadActivities(c echo.Context) error {
	id, err := pathID(c, "lead_id")
	if err != nil {
		return err
	}
	var chk checks
	p := parsePage(c, &chk)
	chk.check(p.After == nil || p.After.At != nil, "query", "cursor", "is not a cursor of this list")
	if err := chk.err(); err != nil {
		return err
	}
	ctx := c.Request().Context()
	if _, err := store.GetLead(ctx, h.DB, workspaceID(c), id); err != nil {
		return err
	}
	rows, err := store.ListLeadActivities(ctx, h.DB, workspaceID(c), id, p.timePage(), p.Limit+1)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, pageOf(rows, p.Limit, func(r store.LeadActivity) cursor {
		t := r.OccurredAt
		return cursor{At: &t, ID: r.ID}
	}, toActivityResponse))
}

// sortRowErrors orders a report's errors by row.
func sortRowErrors(errs []rowError) {
	sort.SliceStable(errs, func(i, j int) bool { return errs[i].Row < errs[j].Row })
}
