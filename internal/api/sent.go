package api

import (
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/rebound-hq/rebound/internal/store"
	"github.com/rebound-hq/rebound/internal/tracking"
)

type sentMessageResponse struct {
	ID         int64     `json:"id"`
	CampaignID int64     `json:"campaign_id"`
	LeadID     int64     `json:"lead_id"`
	MailboxID  *int64    `json:"mailbox_id"`
	MessageID  string    `json:"message_id"`
	VERPToken  *string   `json:"verp_token"`
	Recipient  string    `json:"recipient"`
	Provider   string    `json:"provider"`
	SentAt     time.Time `json:"sent_at"`
	CreatedAt  time.Time `json:"created_at"`
}

func toSentMessageResponse(m store.SentMessage) sentMessageResponse {
	return sentMessageResponse{ID: m.ID, CampaignID: m.CampaignID, LeadID: m.LeadID, MailboxID: m.MailboxID,
		MessageID: m.MessageID, VERPToken: m.VERPToken, Recipient: m.Recipient, Provider: m.Provider,
		SentAt: m.SentAt, CreatedAt: m.CreatedAt}
}

// sentInput is one sent message of a request. Fields are loosely typed in
// bulk rows so that one bad row is reported, not the whole request.
type sentInput struct {
	LeadID    int64  `json:"lead_id"`
	MailboxID int64  `json:"mailbox_id"`
	MessageID string `json:"message_id"`
	VERPToken string `json:"verp_token"`
	SentAt    string `json:"sent_at"`
}

// fieldProblem is a field at fault in one sent message.
type fieldProblem struct{ field, message string }

// validate checks the fields of one sent message and parses it.
func (in sentInput) validate() (tracking.Sent, *fieldProblem) {
	if in.LeadID < 1 {
		return tracking.Sent{}, &fieldProblem{"lead_id", "is required (a positive integer)"}
	}
	if in.MailboxID < 0 {
		return tracking.Sent{}, &fieldProblem{"mailbox_id", "must be a positive integer"}
	}
	mid := strings.TrimSpace(in.MessageID)
	switch {
	case strings.Trim(mid, "<>") == "":
		return tracking.Sent{}, &fieldProblem{"message_id", "is required"}
	case len(mid) > 998 || strings.ContainsAny(mid, " \t\r\n"):
		return tracking.Sent{}, &fieldProblem{"message_id", "must be one Message-ID of at most 998 characters, without spaces"}
	}
	if len(in.VERPToken) > 200 {
		return tracking.Sent{}, &fieldProblem{"verp_token", "must be at most 200 characters"}
	}
	if in.SentAt == "" {
		return tracking.Sent{}, &fieldProblem{"sent_at", "is required"}
	}
	at, err := time.Parse(time.RFC3339Nano, in.SentAt)
	if err != nil {
		return tracking.Sent{}, &fieldProblem{"sent_at", "must be an RFC 3339 date-time such as 2026-01-31T12:00:00Z"}
	}
	return tracking.Sent{LeadID: in.LeadID, MailboxID: in.MailboxID, MessageID: mid, VERPToken: in.VERPToken, SentAt: at}, nil
}

// resolve fills CampaignID from the lead and checks that the lead and the
// mailbox belong to the workspace; it returns a problem per index.
func (h *handlers) resolveSent(c echo.Context, msgs []tracking.Sent) (map[int]fieldProblem, error) {
	var leadIDs, mailboxIDs []int64
	for _, m := range msgs {
		leadIDs = append(leadIDs, m.LeadID)
		if m.MailboxID != 0 {
			mailboxIDs = append(mailboxIDs, m.MailboxID)
		}
	}
	ctx := c.Request().Context()
	campaigns, err := store.LeadCampaigns(ctx, h.DB, workspaceID(c), leadIDs)
	if err != nil {
		return nil, err
	}
	boxes, err := store.MailboxesIn(ctx, h.DB, workspaceID(c), mailboxIDs)
	if err != nil {
		return nil, err
	}
	bad := map[int]fieldProblem{}
	for i := range msgs {
		cid, ok := campaigns[msgs[i].LeadID]
		switch {
		case !ok:
			bad[i] = fieldProblem{"lead_id", "no such lead in this workspace"}
		case msgs[i].MailboxID != 0 && !boxes[msgs[i].MailboxID]:
			bad[i] = fieldProblem{"mailbox_id", "no such mailbox in this workspace"}
		default:
			msgs[i].CampaignID = cid
		}
	}
	return bad, nil
}

func (h *handlers) tracking() (*tracking.Service, error) {
	if h.Tracking == nil {
		return nil, errorf(CodeUnavailable, "sent message registration is not configured on this server")
	}
	return h.Tracking, nil
}

func (h *handlers) createSentMessage(c echo.Context) error {
	var req struct {
		LeadID    int64   `json:"lead_id"`
		MailboxID *int64  `json:"mailbox_id"`
		MessageID string  `json:"message_id"`
		VERPToken *string `json:"verp_token"`
		SentAt    string  `json:"sent_at"`
	}
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	in := sentInput{LeadID: req.LeadID, MessageID: req.MessageID, SentAt: req.SentAt}
	if req.MailboxID != nil {
		in.MailboxID = *req.MailboxID
		if in.MailboxID == 0 {
			return invalidField("body", "mailbox_id", "must be a positive integer")
		}
	}
	if req.VERPToken != nil {
		in.VERPToken = *req.VERPToken
		if in.VERPToken == "" {
			return invalidField("body", "verp_token", "must not be empty")
		}
	}
	msg, p := in.validate()
	if p != nil {
		return invalidField("body", p.field, p.message)
	}
	svc, err := h.tracking()
	if err != nil {
		return err
	}
	msgs := []tracking.Sent{msg}
	bad, err := h.resolveSent(c, msgs)
	if err != nil {
		return err
	}
	if p, ok := bad[0]; ok {
		return fieldError(CodeNotFound, "body", p.field, p.message, nil)
	}
	outs, err := svc.RecordSent(c.Request().Context(), workspaceID(c), msgs)
	if err != nil {
		return err
	}
	if outs[0].Duplicate {
		return conflictField(store.ErrConflict, "message_id", "this Message-ID is already registered")
	}
	row, err := store.GetSentMessage(c.Request().Context(), h.DB, workspaceID(c), outs[0].ID)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, toSentMessageResponse(row))
}

func (h *handlers) createSentMessages(c echo.Context) error {
	var req struct {
		Messages []sentInput `json:"messages"`
	}
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	var chk checks
	chk.check(len(req.Messages) > 0, "body", "messages", "must hold at least one message")
	chk.check(len(req.Messages) <= maxImportRows, "body", "messages", "must hold at most 10000 messages")
	if err := chk.err(); err != nil {
		return err
	}
	svc, err := h.tracking()
	if err != nil {
		return err
	}
	rep := importReport{Received: len(req.Messages), Errors: []rowError{}}
	var msgs []tracking.Sent
	var rowOf []int
	for i, in := range req.Messages {
		m, p := in.validate()
		if p != nil {
			rep.Errors = append(rep.Errors, rowError{Row: i + 1, Field: p.field, Message: p.message})
			continue
		}
		msgs = append(msgs, m)
		rowOf = append(rowOf, i+1)
	}
	bad, err := h.resolveSent(c, msgs)
	if err != nil {
		return err
	}
	var ok []tracking.Sent
	for i, m := range msgs {
		if p, isBad := bad[i]; isBad {
			rep.Errors = append(rep.Errors, rowError{Row: rowOf[i], Field: p.field, Message: p.message})
			continue
		}
		ok = append(ok, m)
	}
	if len(ok) > 0 {
		outs, err := svc.RecordSent(c.Request().Context(), workspaceID(c), ok)
		if err != nil {
			return err
		}
		for _, o := range outs {
			if o.Duplicate {
				rep.Existing++
			} else {
				rep.Created++
			}
		}
	}
	sortRowErrors(rep.Errors)
	rep.Failed = len(rep.Errors)
	return c.JSON(http.StatusOK, rep)
}

func (h *handlers) listSentMessages(c echo.Context) error {
	var chk checks
	p := parsePage(c, &chk)
	chk.check(p.After == nil || p.After.At != nil, "query", "cursor", "is not a cursor of this list")
	f := store.SentFilter{CampaignID: queryID(c, &chk, "campaign_id"), LeadID: queryID(c, &chk, "lead_id")}
	if err := chk.err(); err != nil {
		return err
	}
	rows, err := store.ListSentMessages(c.Request().Context(), h.DB, workspaceID(c), f, p.timePage(), p.Limit+1)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, pageOf(rows, p.Limit, func(m store.SentMessage) cursor {
		t := m.SentAt
		return cursor{At: &t, ID: m.ID}
	}, toSentMessageResponse))
}

func (h *handlers) getSentMessage(c echo.Context) error {
	return getByID(h, c, "sent_message_id", store.GetSentMessage, toSentMessageResponse)
}

func init() {
	errorTranslators = append(errorTranslators, func(err error) *Error {
		if errors.Is(err, tracking.ErrInvalidSent) {
			// The handlers check leads and campaigns first; this is a lead
			// deleted or moved in between.
			return &Error{Code: CodeConflict, Detail: "a lead changed while its sent messages were registered; retry", Err: err}
		}
		return nil
	})
}
