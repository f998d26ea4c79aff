package store

import (
	"context"

	"gorm.io/gorm"
)

// CampaignFilter narrows ListCampaigns; zero fields do not filter.
type CampaignFilter struct {
	Status string
}

// ListCampaigns returns up to limit campaigns of workspaceID after p,
// newest first.
func ListCampaigns(ctx context.Context, db *gorm.DB, workspaceID int64, f CampaignFilter, p *Page, limit int) ([]Campaign, error) {
	q := db.WithContext(ctx).Where("workspace_id = ?", workspaceID)
	if f.Status != "" {
		q = q.Where("status = ?", f.Status)
	}
	var out []Campaign
	err := afterID(q, p).Order("id DESC").Limit(limit).Find(&out).Error
	return out, Translate("list campaigns", err)
}

// GetCampaign returns campaign id of workspaceID, or ErrNotFound.
func GetCampaign(ctx context.Context, db *gorm.DB, workspaceID, id int64) (Campaign, error) {
	var c Campaign
	err := db.WithContext(ctx).Where("workspace_id = ? AND id = ?", workspaceID, id).Take(&c).Error
	return c, Translate("get campaign", err)
}

// CreateCampaign inserts c (c.WorkspaceID set by the caller); a taken
// external ID is ErrConflict.
func CreateCampaign(ctx context.Context, db *gorm.DB, c *Campaign) error {
	return Translate("create campaign", createAndReload(ctx, db, c))
}

// UpdateCampaign writes the given columns of campaign id of workspaceID and
// returns the row as stored.
func UpdateCampaign(ctx context.Context, db *gorm.DB, workspaceID, id int64, cols map[string]any) (Campaign, error) {
	c, err := updateRow[Campaign](ctx, db, workspaceID, id, cols)
	return c, Translate("update campaign", err)
}

// DeleteCampaign deletes campaign id of workspaceID with its leads, sent
// messages and timelines. Its bounce events stay, marked unmatched (the
// schema requires campaign_id and matched_by to be NULL together), and the
// workspace's report counters are rebuilt (a scan of its events: deletions
// are rare).
func DeleteCampaign(ctx context.Context, db *gorm.DB, workspaceID, id int64) error {
	err := db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var c Campaign
		if err := tx.Where("workspace_id = ? AND id = ?", workspaceID, id).Take(&c).Error; err != nil {
			return err
		}
		if err := tx.Model(&BounceEvent{}).Where("workspace_id = ? AND campaign_id = ?", workspaceID, id).
			Updates(map[string]any{"campaign_id": nil, "lead_id": nil, "sent_message_id": nil, "matched_by": nil}).Error; err != nil {
			return err
		}
		if err := tx.Where("workspace_id = ? AND id = ?", workspaceID, id).Delete(&Campaign{}).Error; err != nil {
			return err
		}
		// The campaign's events now count as unmatched and its sends are
		// gone: rebuild the workspace's counters so reports stay exact.
		return RecountCounters(ctx, tx, workspaceID)
	})
	return Translate("delete campaign", err)
}
