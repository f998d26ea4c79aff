package store

import (
	"context"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// LeadFilter narrows ListLeads; zero fields do not filter.
type LeadFilter struct {
	CampaignID int64
	Status     string
	Email      string // lower case
}

// ListLeads returns up to limit leads of workspaceID after p, newest first.
func ListLeads(ctx context.Context, db *gorm.DB, workspaceID int64, f LeadFilter, p *Page, limit int) ([]Lead, error) {
	q := db.WithContext(ctx).Where("workspace_id = ?", workspaceID)
	if f.CampaignID != 0 {
		q = q.Where("campaign_id = ?", f.CampaignID)
	}
	if f.Status != "" {
		q = q.Where("status = ?", f.Status)
	}
	if f.Email != "" {
		q = q.Where("email = ?", f.Email)
	}
	var out []Lead
	err := afterID(q, p).Order("id DESC").Limit(limit).Find(&out).Error
	return out, Translate("list leads", err)
}

// GetLead returns lead id of workspaceID, or ErrNotFound.
func GetLead(ctx context.Context, db *gorm.DB, workspaceID, id int64) (Lead, error) {
	var l Lead
	err := db.WithContext(ctx).Where("workspace_id = ? AND id = ?", workspaceID, id).Take(&l).Error
	return l, Translate("get lead", err)
}

// CreateLead inserts l; an address or external ID already in the campaign
// is ErrConflict.
func CreateLead(ctx context.Context, db *gorm.DB, l *Lead) error {
	return Translate("create lead", createAndReload(ctx, db, l))
}

// UpdateLead writes the given columns of lead id of workspaceID and returns
// the row as stored.
func UpdateLead(ctx context.Context, db *gorm.DB, workspaceID, id int64, cols map[string]any) (Lead, error) {
	l, err := updateRow[Lead](ctx, db, workspaceID, id, cols)
	return l, Translate("update lead", err)
}

// DeleteLead deletes lead id of workspaceID with its sent messages and
// timeline; its bounce events stay, without the lead. The workspace's report
// counters are rebuilt in the same transaction.
func DeleteLead(ctx context.Context, db *gorm.DB, workspaceID, id int64) error {
	err := db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		res := tx.Where("workspace_id = ? AND id = ?", workspaceID, id).Delete(&Lead{})
		if res.Error != nil {
			return res.Error
		}
		if res.RowsAffected == 0 {
			return gorm.ErrRecordNotFound
		}
		// Its sent messages went with it: rebuild the counters so "messages
		// sent" and the rates stay exact.
		return RecountCounters(ctx, tx, workspaceID)
	})
	return Translate("delete lead", err)
}

// ExistingLeadKeys returns which of emails and externalIDs campaignID of
// workspaceID already holds, as sets.
func ExistingLeadKeys(ctx context.Context, db *gorm.DB, workspaceID, campaignID int64, emails, externalIDs []string) (map[string]bool, map[string]bool, error) {
	byEmail, byExt := map[string]bool{}, map[string]bool{}
	if len(emails) > 0 {
		var found []string
		err := db.WithContext(ctx).Model(&Lead{}).
			Where("workspace_id = ? AND campaign_id = ? AND email IN ?", workspaceID, campaignID, emails).
			Pluck("email", &found).Error
		if err != nil {
			return nil, nil, Translate("find existing leads", err)
		}
		for _, e := range found {
			byEmail[e] = true
		}
	}
	if len(externalIDs) > 0 {
		var found []string
		err := db.WithContext(ctx).Model(&Lead{}).
			Where("workspace_id = ? AND campaign_id = ? AND external_id IN ?", workspaceID, campaignID, externalIDs).
			Pluck("external_id", &found).Error
		if err != nil {
			return nil, nil, Translate("find existing leads", err)
		}
		for _, e := range found {
			byExt[e] = true
		}
	}
	return byEmail, byExt, nil
}

// InsertLeads inserts leads in batches, skipping any that a concurrent
// writer added meanwhile (any unique conflict), and returns how many were
// inserted.
func InsertLeads(ctx context.Context, db *gorm.DB, leads []Lead) (int64, error) {
	if len(leads) == 0 {
		return 0, nil
	}
	res := db.WithContext(ctx).Clauses(clause.OnConflict{DoNothing: true}).CreateInBatches(&leads, 1000)
	return res.RowsAffected, Translate("insert leads", res.Error)
}

// ListLeadActivities returns up to limit timeline entries of lead leadID of
// workspaceID after p, newest first (occurred_at DESC, id DESC).
func ListLeadActivities(ctx context.Context, db *gorm.DB, workspaceID, leadID int64, p *Page, limit int) ([]LeadActivity, error) {
	q := db.WithContext(ctx).Where("workspace_id = ? AND lead_id = ?", workspaceID, leadID)
	var out []LeadActivity
	err := afterTime(q, "occurred_at", p).Order("occurred_at DESC, id DESC").Limit(limit).Find(&out).Error
	return out, Translate("list lead activities", err)
}
