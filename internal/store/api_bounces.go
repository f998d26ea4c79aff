package store

import (
	"context"
	"time"

	"gorm.io/gorm"
)

// BounceFilter narrows ListBounces; zero fields do not filter.
type BounceFilter struct {
	CampaignID int64
	LeadID     int64
	MailboxID  int64 // the sending mailbox
	Kind       string
	Class      string
	Label      string
	Reason     string
	Provider   string
	Since      time.Time // occurred_at >= Since
	Until      time.Time // occurred_at < Until
	Unmatched  bool      // only events matched to no campaign
}

// ListBounces returns up to limit bounce events of workspaceID after p,
// newest first (occurred_at DESC, id DESC).
func ListBounces(ctx context.Context, db *gorm.DB, workspaceID int64, f BounceFilter, p *Page, limit int) ([]BounceEvent, error) {
	q := db.WithContext(ctx).Where("workspace_id = ?", workspaceID)
	if f.CampaignID != 0 {
		q = q.Where("campaign_id = ?", f.CampaignID)
	}
	if f.LeadID != 0 {
		q = q.Where("lead_id = ?", f.LeadID)
	}
	if f.MailboxID != 0 {
		q = q.Where("sending_mailbox_id = ?", f.MailboxID)
	}
	if f.Kind != "" {
		q = q.Where("kind = ?", f.Kind)
	}
	if f.Class != "" {
		q = q.Where("class = ?", f.Class)
	}
	if f.Label != "" {
		q = q.Where("label = ?", f.Label)
	}
	if f.Reason != "" {
		q = q.Where("reason = ?", f.Reason)
	}
	if f.Provider != "" {
		q = q.Where("provider = ?", f.Provider)
	}
	if !f.Since.IsZero() {
		q = q.Where("occurred_at >= ?", f.Since)
	}
	if !f.Until.IsZero() {
		q = q.Where("occurred_at < ?", f.Until)
	}
	if f.Unmatched {
		q = q.Where("campaign_id IS NULL")
	}
	var out []BounceEvent
	err := afterTime(q, "occurred_at", p).Order("occurred_at DESC, id DESC").Limit(limit).Find(&out).Error
	return out, Translate("list bounces", err)
}

// GetBounce returns bounce event id of workspaceID with its raw message, or
// ErrNotFound.
func GetBounce(ctx context.Context, db *gorm.DB, workspaceID, id int64) (BounceEvent, RawMessage, error) {
	var ev BounceEvent
	var raw RawMessage
	err := db.WithContext(ctx).Where("workspace_id = ? AND id = ?", workspaceID, id).Take(&ev).Error
	if err != nil {
		return ev, raw, Translate("get bounce", err)
	}
	err = db.WithContext(ctx).Where("workspace_id = ? AND id = ?", workspaceID, ev.RawMessageID).Take(&raw).Error
	return ev, raw, Translate("get bounce raw message", err)
}
