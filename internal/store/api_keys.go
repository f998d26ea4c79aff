package store

import (
	"context"
	"time"

	"gorm.io/gorm"
)

// This file holds the queries of the REST API (internal/api) over
// workspaces and API keys.

// Page is a keyset position for list queries ordered newest first: rows
// strictly after (At, ID) in (At DESC, ID DESC) order, or after ID alone in
// ID DESC order when At is nil. A nil *Page is the first page.
type Page struct {
	At *time.Time
	ID int64
}

// afterID restricts q to rows before p in "id DESC" order.
func afterID(q *gorm.DB, p *Page) *gorm.DB {
	if p == nil {
		return q
	}
	return q.Where("id < ?", p.ID)
}

// afterTime restricts q to rows after p in "col DESC, id DESC" order.
func afterTime(q *gorm.DB, col string, p *Page) *gorm.DB {
	if p == nil || p.At == nil {
		return q
	}
	return q.Where("("+col+", id) < (?, ?)", *p.At, p.ID)
}

// CreateWorkspace inserts a workspace together with its first API key, in
// one transaction. key.WorkspaceID is set from the new workspace.
func CreateWorkspace(ctx context.Context, db *gorm.DB, ws *Workspace, key *APIKey) error {
	err := db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if err := createAndReload(ctx, tx, ws); err != nil {
			return err
		}
		key.WorkspaceID = ws.ID
		return createAndReload(ctx, tx, key)
	})
	return Translate("create workspace", err)
}

// GetWorkspace returns workspace id, or ErrNotFound.
func GetWorkspace(ctx context.Context, db *gorm.DB, id int64) (Workspace, error) {
	var ws Workspace
	err := db.WithContext(ctx).Where("id = ?", id).Take(&ws).Error
	return ws, Translate("get workspace", err)
}

// CreateAPIKey inserts key; a taken prefix or hash is ErrConflict, a
// missing workspace ErrConflict too (foreign key).
func CreateAPIKey(ctx context.Context, db *gorm.DB, key *APIKey) error {
	return Translate("create api key", createAndReload(ctx, db, key))
}

// ListAPIKeys returns up to limit keys of workspaceID after p, newest first.
func ListAPIKeys(ctx context.Context, db *gorm.DB, workspaceID int64, p *Page, limit int) ([]APIKey, error) {
	var keys []APIKey
	q := afterID(db.WithContext(ctx).Where("workspace_id = ?", workspaceID), p)
	err := q.Order("id DESC").Limit(limit).Find(&keys).Error
	return keys, Translate("list api keys", err)
}

// RevokeAPIKey sets revoked_at on key id of workspaceID (keeping an earlier
// revocation time). A key of another workspace is ErrNotFound.
func RevokeAPIKey(ctx context.Context, db *gorm.DB, workspaceID, id int64, now time.Time) error {
	res := db.WithContext(ctx).Model(&APIKey{}).
		Where("workspace_id = ? AND id = ?", workspaceID, id).
		Update("revoked_at", gorm.Expr("COALESCE(revoked_at, ?)", now))
	if res.Error != nil {
		return Translate("revoke api key", res.Error)
	}
	if res.RowsAffected == 0 {
		return Translate("revoke api key", gorm.ErrRecordNotFound)
	}
	return nil
}

// APIKeyByHash returns the key whose SHA-256 is hash, revoked or not, or
// ErrNotFound. It is the one query not scoped by workspace: it is how a
// request's workspace is found.
func APIKeyByHash(ctx context.Context, db *gorm.DB, hash []byte) (APIKey, error) {
	var key APIKey
	err := db.WithContext(ctx).Where("hash = ?", hash).Take(&key).Error
	return key, Translate("find api key", err)
}

// KeyTouchInterval is how stale an API key's last_used_at may grow before a
// request writes it again.
const KeyTouchInterval = time.Minute

// TouchAPIKey records that key id was used at now, writing at most once per
// minute per key so that busy keys do not write on every request.
func TouchAPIKey(ctx context.Context, db *gorm.DB, id int64, now time.Time) error {
	err := db.WithContext(ctx).Session(&gorm.Session{SkipDefaultTransaction: true}).Model(&APIKey{}).
		Where("id = ? AND (last_used_at IS NULL OR last_used_at < ?)", id, now.Add(-KeyTouchInterval)).
		Update("last_used_at", now).Error
	return Translate("touch api key", err)
}

// createAndReload inserts row and reads it back, so that columns the
// database fills (created_at, defaults) are set on row.
func createAndReload[T any](ctx context.Context, db *gorm.DB, row *T) error {
	if err := db.WithContext(ctx).Create(row).Error; err != nil {
		return err
	}
	return db.WithContext(ctx).Take(row).Error
}

// updateRow writes cols (column name to value; none: only read) to row id
// of workspaceID in table T and returns the row as stored, in one
// transaction; a missing row is gorm.ErrRecordNotFound.
func updateRow[T any](ctx context.Context, db *gorm.DB, workspaceID, id int64, cols map[string]any) (T, error) {
	var row T
	err := db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if err := tx.Where("workspace_id = ? AND id = ?", workspaceID, id).Take(&row).Error; err != nil {
			return err
		}
		if len(cols) == 0 {
			return nil
		}
		if err := tx.Model(new(T)).Where("workspace_id = ? AND id = ?", workspaceID, id).Updates(cols).Error; err != nil {
			return err
		}
		var fresh T // scanning into the old row would keep fields now NULL
		if err := tx.Where("workspace_id = ? AND id = ?", workspaceID, id).Take(&fresh).Error; err != nil {
			return err
		}
		row = fresh
		return nil
	})
	return row, err
}
