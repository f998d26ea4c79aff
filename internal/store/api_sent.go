package store

import (
	"context"

	"gorm.io/gorm"
)

// SentFilter narrows ListSentMessages; zero fields do not filter.
type SentFilter struct {
	CampaignID int64
	LeadID     int64
}

// ListSentMessages returns up to limit sent messages of workspaceID after
// p, newest sent first (sent_at DESC, id DESC).
func ListSentMessages(ctx context.Context, db *gorm.DB, workspaceID int64, f SentFilter, p *Page, limit int) ([]SentMessage, error) {
	q := db.WithContext(ctx).Where("workspace_id = ?", workspaceID)
	if f.CampaignID != 0 {
		q = q.Where("campaign_id = ?", f.CampaignID)
	}
	if f.LeadID != 0 {
		q = q.Where("lead_id = ?", f.LeadID)
	}
	var out []SentMessage
	err := afterTime(q, "sent_at", p).Order("sent_at DESC, id DESC").Limit(limit).Find(&out).Error
	return out, Translate("list sent messages", err)
}

// GetSentMessage returns sent message id of workspaceID, or ErrNotFound.
func GetSentMessage(ctx context.Context, db *gorm.DB, workspaceID, id int64) (SentMessage, error) {
	var m SentMessage
	err := db.WithContext(ctx).Where("workspace_id = ? AND id = ?", workspaceID, id).Take(&m).Error
	return m, Translate("get sent message", err)
}

// LeadCampaigns returns the campaign of each of leadIDs that is a lead of
// workspaceID.
func LeadCampaigns(ctx context.Context, db *gorm.DB, workspaceID int64, leadIDs []int64) (map[int64]int64, error) {
	out := map[int64]int64{}
	if len(leadIDs) == 0 {
		return out, nil
	}
	var rows []struct{ ID, CampaignID int64 }
	err := db.WithContext(ctx).Model(&Lead{}).Select("id, campaign_id").
		Where("workspace_id = ? AND id IN ?", workspaceID, leadIDs).Scan(&rows).Error
	for _, r := range rows {
		out[r.ID] = r.CampaignID
	}
	return out, Translate("find lead campaigns", err)
}

// MailboxesIn returns which of ids are mailboxes of workspaceID.
func MailboxesIn(ctx context.Context, db *gorm.DB, workspaceID int64, ids []int64) (map[int64]bool, error) {
	out := map[int64]bool{}
	if len(ids) == 0 {
		return out, nil
	}
	var found []int64
	err := db.WithContext(ctx).Model(&Mailbox{}).Where("workspace_id = ? AND id IN ?", workspaceID, ids).Pluck("id", &found).Error
	for _, id := range found {
		out[id] = true
	}
	return out, Translate("find mailboxes", err)
}
