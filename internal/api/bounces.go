package api

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/rebound-hq/rebound/internal/classify"
	"github.com/rebound-hq/rebound/internal/codes"
	"github.com/rebound-hq/rebound/internal/store"
	"github.com/rebound-hq/rebound/internal/tracking"
)

var (
	bounceKinds   = []string{"bounce", "delayed", "auto_reply", "complaint", "delivered"}
	bounceClasses = []string{classify.ClassSoft, classify.ClassHard}
	// reportLabels are the label filter values: classify's labels, plus
	// "Delivered", which openapi.yaml's label enum also lists.
	reportLabels = append(slices.Clip(classify.Labels), "Delivered")
)

type bounceResponse struct {
	ID                int64     `json:"id"`
	Kind              string    `json:"kind"`
	Class             *string   `json:"class"`
	Reason            string    `json:"reason"`
	Label             string    `json:"label"`
	AddressInvalid    bool      `json:"address_invalid"`
	Status            string    `json:"status"`
	ReplyCode         string    `json:"reply_code"`
	Diagnostic        string    `json:"diagnostic"`
	RemoteMTA         string    `json:"remote_mta"`
	ReportingMTA      string    `json:"reporting_mta"`
	Provider          string    `json:"provider"`
	FeedbackType      string    `json:"feedback_type"`
	Format            string    `json:"format"`
	Recipient         string    `json:"recipient"`
	OriginalMessageID string    `json:"original_message_id"`
	MatchedBy         *string   `json:"matched_by"`
	CampaignID        *int64    `json:"campaign_id"`
	LeadID            *int64    `json:"lead_id"`
	SentMessageID     *int64    `json:"sent_message_id"`
	MailboxID         *int64    `json:"mailbox_id"`
	CodeEntryID       string    `json:"code_entry_id"`
	OccurredAt        time.Time `json:"occurred_at"`
	CreatedAt         time.Time `json:"created_at"`
}

func toBounceResponse(e store.BounceEvent) bounceResponse {
	return bounceResponse{ID: e.ID, Kind: e.Kind, Class: e.Class, Reason: e.Reason, Label: e.Label,
		AddressInvalid: e.AddressInvalid, Status: e.Status, ReplyCode: e.ReplyCode, Diagnostic: e.Diagnostic,
		RemoteMTA: e.RemoteMTA, ReportingMTA: e.ReportingMTA, Provider: e.Provider, FeedbackType: e.FeedbackType,
		Format: e.Format, Recipient: e.Recipient, OriginalMessageID: e.OriginalMessageID, MatchedBy: e.MatchedBy,
		CampaignID: e.CampaignID, LeadID: e.LeadID, SentMessageID: e.SentMessageID, MailboxID: e.SendingMailboxID,
		CodeEntryID: e.CodeEntryID, OccurredAt: e.OccurredAt, CreatedAt: e.CreatedAt}
}

func bounceCursor(e store.BounceEvent) cursor {
	t := e.OccurredAt
	return cursor{At: &t, ID: e.ID}
}

// parseBounceFilter reads the filters shared by the bounce lists.
func parseBounceFilter(c echo.Context, chk *checks, full bool) store.BounceFilter {
	f := store.BounceFilter{
		Kind:  queryEnum(c, chk, "kind", bounceKinds...),
		Since: queryTime(c, chk, "since"),
		Until: queryTime(c, chk, "until"),
	}
	if full {
		f.CampaignID = queryID(c, chk, "campaign_id")
		f.LeadID = queryID(c, chk, "lead_id")
		f.MailboxID = queryID(c, chk, "mailbox_id")
		f.Class = queryEnum(c, chk, "class", bounceClasses...)
		f.Label = queryEnum(c, chk, "label", reportLabels...)
		f.Reason = queryEnum(c, chk, "reason", classify.Reasons...)
		f.Provider = strings.ToLower(queryString(c, chk, "provider", 64))
	}
	if !f.Since.IsZero() && !f.Until.IsZero() && !f.Until.After(f.Since) {
		chk.add("query", "until", "must be later than since")
	}
	return f
}

func (h *handlers) listBounceEvents(c echo.Context, unmatched bool) error {
	var chk checks
	p := parsePage(c, &chk)
	chk.check(p.After == nil || p.After.At != nil, "query", "cursor", "is not a cursor of this list")
	f := parseBounceFilter(c, &chk, !unmatched)
	f.Unmatched = unmatched
	if err := chk.err(); err != nil {
		return err
	}
	rows, err := store.ListBounces(c.Request().Context(), h.DB, workspaceID(c), f, p.timePage(), p.Limit+1)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, pageOf(rows, p.Limit, bounceCursor, toBounceResponse))
}

func (h *handlers) listBounces(c echo.Context) error { return h.listBounceEvents(c, false) }

func (h *handlers) listUnmatchedBounces(c echo.Context) error { return h.listBounceEvents(c, true) }

type rawMessageResponse struct {
	ID           int64     `json:"id"`
	Size         int       `json:"size"`
	MailboxID    *int64    `json:"mailbox_id"`
	Folder       string    `json:"folder"`
	ReceivedAt   time.Time `json:"received_at"`
	DecodeStatus string    `json:"decode_status"`
	DecodeError  string    `json:"decode_error"`
	Content      string    `json:"content"`
	// ContentPurgedAt is set once retention removed the bytes.
	ContentPurgedAt *time.Time `json:"content_purged_at"`
}

// rawContent returns the stored message's bytes (stored gzip-compressed);
// nil for a message whose bytes retention purged.
func rawContent(raw store.RawMessage) ([]byte, error) {
	if raw.ContentPurgedAt != nil {
		return nil, nil
	}
	b, err := tracking.Decompress(raw.Content)
	if err != nil {
		return nil, fmt.Errorf("api: raw message %d: %w", raw.ID, err)
	}
	return b, nil
}

func (h *handlers) getBounce(c echo.Context) error {
	id, err := pathID(c, "bounce_id")
	if err != nil {
		return err
	}
	ev, raw, err := store.GetBounce(c.Request().Context(), h.DB, workspaceID(c), id)
	if err != nil {
		return err
	}
	content, err := rawContent(raw)
	if err != nil {
		return err
	}
	var expl *codeEntryResponse
	if e, ok := codes.Get(ev.CodeEntryID); ok {
		expl = toCodeEntryResponse(e)
	} else if e, ok := codes.ForResult(ev.Status, ev.ReplyCode, ev.Diagnostic, ev.Provider); ok {
		expl = toCodeEntryResponse(e)
	}
	return c.JSON(http.StatusOK, struct {
		Bounce      bounceResponse     `json:"bounce"`
		Explanation *codeEntryResponse `json:"explanation"`
		RawMessage  rawMessageResponse `json:"raw_message"`
	}{toBounceResponse(ev), expl, rawMessageResponse{ID: raw.ID, Size: raw.Size, MailboxID: raw.MailboxID,
		Folder: raw.Folder, ReceivedAt: raw.ReceivedAt, DecodeStatus: raw.DecodeStatus, DecodeError: raw.DecodeError,
		Content: strings.ToValidUTF8(string(content), "\uFFFD"), ContentPurgedAt: raw.ContentPurgedAt}})
}

func (h *handlers) getBounceRaw(c echo.Context) error {
	id, err := pathID(c, "bounce_id")
	if err != nil {
		return err
	}
	_, raw, err := store.GetBounce(c.Request().Context(), h.DB, workspaceID(c), id)
	if err != nil {
		return err
	}
	if raw.ContentPurgedAt != nil {
		return errorf(CodeGone, "the raw message was removed on %s, past the retention period; its decoded events remain",
			raw.ContentPurgedAt.UTC().Format(time.RFC3339))
	}
	content, err := rawContent(raw)
	if err != nil {
		return err
	}
	return c.Blob(http.StatusOK, "message/rfc822", content)
}
