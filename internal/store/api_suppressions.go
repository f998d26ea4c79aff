package store

import (
	"context"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// ListSuppressions returns up to limit suppressions of workspaceID after p,
// newest first (created_at DESC, id DESC); source "" lists every source.
func ListSuppressions(ctx context.Context, db *gorm.DB, workspaceID int64, source string, p *Page, limit int) ([]Suppression, error) {
	q := db.WithContext(ctx).Where("workspace_id = ?", workspaceID)
	if source != "" {
		q = q.Where("source = ?", source)
	}
	var out []Suppression
	err := afterTime(q, "created_at", p).Order("created_at DESC, id DESC").Limit(limit).Find(&out).Error
	return out, Translate("list suppressions", err)
}

// SuppressionByEmail returns the suppression of email (lower case) in
// workspaceID, or ErrNotFound.
func SuppressionByEmail(ctx context.Context, db *gorm.DB, workspaceID int64, email string) (Suppression, error) {
	var s Suppression
	err := db.WithContext(ctx).Where("workspace_id = ? AND email = ?", workspaceID, email).Take(&s).Error
	return s, Translate("find suppression", err)
}

// AddSuppression suppresses s.Email in s.WorkspaceID unless it already is;
// it returns the stored row and whether it was created now.
func AddSuppression(ctx context.Context, db *gorm.DB, s Suppression) (Suppression, bool, error) {
	res := db.WithContext(ctx).Clauses(clause.OnConflict{DoNothing: true}).Create(&s)
	if res.Error != nil {
		return s, false, Translate("add suppression", res.Error)
	}
	if res.RowsAffected == 1 {
		return s, true, nil
	}
	existing, err := SuppressionByEmail(ctx, db, s.WorkspaceID, s.Email)
	return existing, false, err
}

// DeleteSuppression removes suppression id of workspaceID, or returns
// ErrNotFound.
func DeleteSuppression(ctx context.Context, db *gorm.DB, workspaceID, id int64) error {
	res := db.WithContext(ctx).Where("workspace_id = ? AND id = ?", workspaceID, id).Delete(&Suppression{})
	if res.Error != nil {
		return Translate("delete suppression", res.Error)
	}
	if res.RowsAffected == 0 {
		return Translate("delete suppression", gorm.ErrRecordNotFound)
	}
	return nil
}
