package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"time"

	"gorm.io/gorm"
)

// This file holds the mailbox queries of the sync (internal/mailbox and
// internal/tasks): CRUD with the sync_options document of migration 00030,
// the due-mailbox scan of the scheduler, sync state and the per-mailbox
// advisory lock.

// MailboxRow is a mailbox with its sync_options JSON document.
type MailboxRow struct {
	Mailbox
	SyncOptions []byte `gorm:"column:sync_options;type:jsonb"`
}

// TableName maps MailboxRow onto the mailboxes table.
func (MailboxRow) TableName() string { return "mailboxes" }

// CreateMailbox inserts m (ID and CreatedAt are set by the database) in
// m.WorkspaceID.
func CreateMailbox(ctx context.Context, db *gorm.DB, m *MailboxRow) error {
	if len(m.SyncOptions) == 0 {
		m.SyncOptions = []byte("{}")
	}
	if err := db.WithContext(ctx).Create(m).Error; err != nil {
		return Translate("create mailbox", err)
	}
	return nil
}

// GetMailbox returns mailbox id of workspaceID, or ErrNotFound.
func GetMailbox(ctx context.Context, db *gorm.DB, workspaceID, id int64) (*MailboxRow, error) {
	var m MailboxRow
	err := db.WithContext(ctx).Where("workspace_id = ? AND id = ?", workspaceID, id).Take(&m).Error
	if err != nil {
		return nil, Translate("get mailbox", err)
	}
	return &m, nil
}

// GetMailboxForSync returns mailbox id whatever its workspace; only the
// worker, which is handed a mailbox id by the queue, uses it.
func GetMailboxForSync(ctx context.Context, db *gorm.DB, id int64) (*MailboxRow, error) {
	var m MailboxRow
	if err := db.WithContext(ctx).Where("id = ?", id).Take(&m).Error; err != nil {
		return nil, Translate("get mailbox for sync", err)
	}
	return &m, nil
}

// ListMailboxes returns the mailboxes of workspaceID by id.
func ListMailboxes(ctx context.Context, db *gorm.DB, workspaceID int64) ([]MailboxRow, error) {
	var ms []MailboxRow
	if err := db.WithContext(ctx).Where("workspace_id = ?", workspaceID).Order("id").Find(&ms).Error; err != nil {
		return nil, Translate("list mailboxes", err)
	}
	return ms, nil
}

// SaveMailbox writes every column of m (scoped to m.WorkspaceID).
func SaveMailbox(ctx context.Context, db *gorm.DB, m *MailboxRow) error {
	res := db.WithContext(ctx).Model(&MailboxRow{}).Where("workspace_id = ? AND id = ?", m.WorkspaceID, m.ID).
		Select("name", "host", "port", "tls_mode", "auth_kind", "username", "secret_sealed", "secret_key_id",
			"folders", "status", "sync_interval_seconds", "last_error", "consecutive_failures", "next_sync_at",
			"processed_action", "processed_target", "sync_options", "updated_at").
		Updates(m)
	if res.Error != nil {
		return Translate("save mailbox", res.Error)
	}
	if res.RowsAffected == 0 {
		return fmt.Errorf("store: save mailbox %d: %w", m.ID, ErrNotFound)
	}
	return nil
}

// DeleteMailbox deletes mailbox id of workspaceID (its checkpoints go with
// it), or returns ErrNotFound.
func DeleteMailbox(ctx context.Context, db *gorm.DB, workspaceID, id int64) error {
	res := db.WithContext(ctx).Where("workspace_id = ? AND id = ?", workspaceID, id).Delete(&MailboxRow{})
	if res.Error != nil {
		return Translate("delete mailbox", res.Error)
	}
	if res.RowsAffected == 0 {
		return fmt.Errorf("store: delete mailbox %d: %w", id, ErrNotFound)
	}
	return nil
}

// MailboxCheckpoints returns the folder checkpoints of a mailbox.
func MailboxCheckpoints(ctx context.Context, db *gorm.DB, mailboxID int64) ([]MailboxFolder, error) {
	var fs []MailboxFolder
	if err := db.WithContext(ctx).Where("mailbox_id = ?", mailboxID).Find(&fs).Error; err != nil {
		return nil, Translate("mailbox checkpoints", err)
	}
	return fs, nil
}

// ClaimDueMailboxes returns up to limit active (or failing, status error)
// mailboxes whose next sync is
// due at now (or never scheduled), and in the same statement moves their
// next_sync_at to now+hold, so that the next scheduler tick, here or in
// another worker, does not enqueue them again while they wait in the queue.
// SKIP LOCKED lets several schedulers run at once.
func ClaimDueMailboxes(ctx context.Context, db *gorm.DB, now time.Time, hold time.Duration, limit int) ([]int64, error) {
	var ids []int64
	err := db.WithContext(ctx).Raw(`
UPDATE mailboxes SET next_sync_at = ?
WHERE id IN (
    SELECT id FROM mailboxes
    WHERE status IN ('active', 'error') AND (next_sync_at IS NULL OR next_sync_at <= ?)
    ORDER BY next_sync_at NULLS FIRST, id
    LIMIT ? FOR UPDATE SKIP LOCKED)
RETURNING id`, now.Add(hold), now, limit).Scan(&ids).Error
	if err != nil {
		return nil, Translate("claim due mailboxes", err)
	}
	return ids, nil
}

// SyncStarted records that a sync of mailbox id began at now.
func SyncStarted(ctx context.Context, db *gorm.DB, id int64, now time.Time) error {
	err := db.WithContext(ctx).Exec(`UPDATE mailboxes SET sync_started_at = ? WHERE id = ?`, now, id).Error
	return Translate("sync started", err)
}

// SyncResult is the outcome of one sync, for FinishSync.
type SyncResult struct {
	Status     string    // MailboxActive, MailboxAuthError or MailboxError
	Err        string    // "" on success; shown to the customer, no secrets
	Failed     bool      // counts as a failure (consecutive_failures + 1)
	NextSyncAt time.Time // when the scheduler should sync again
	Seen       int64     // messages looked at, added to messages_seen
	Bounces    int64     // bounce messages recorded, added to bounces_recorded
}

// FinishSync stores the outcome of a sync of mailbox id: status, last sync
// time, last error, failure count, next sync time and the counters. A sync
// that found the mailbox paused or deleted meanwhile leaves its status.
func FinishSync(ctx context.Context, db *gorm.DB, id int64, now time.Time, r SyncResult) error {
	err := db.WithContext(ctx).Exec(`
UPDATE mailboxes SET
    status = CASE WHEN status = 'paused' THEN status ELSE ? END,
    last_sync_at = ?,
    last_error = ?,
    consecutive_failures = CASE WHEN ? THEN consecutive_failures + 1 ELSE 0 END,
    next_sync_at = ?,
    messages_seen = messages_seen + ?,
    bounces_recorded = bounces_recorded + ?,
    sync_started_at = NULL,
    updated_at = ?
WHERE id = ?`, r.Status, now, r.Err, r.Failed, r.NextSyncAt, r.Seen, r.Bounces, now, id).Error
	return Translate("finish sync", err)
}

// UpdateMailboxSecret replaces the sealed secret of mailbox id (after an
// OAuth2 refresh-token rotation or a key rotation).
func UpdateMailboxSecret(ctx context.Context, db *gorm.DB, id int64, sealed []byte, keyID string, now time.Time) error {
	err := db.WithContext(ctx).Exec(`UPDATE mailboxes SET secret_sealed = ?, secret_key_id = ?, updated_at = ? WHERE id = ?`,
		sealed, keyID, now, id).Error
	return Translate("update mailbox secret", err)
}

// mailboxLockClass is the first key of the two-key advisory locks taken on
// mailboxes (pg_try_advisory_lock(int, int)); the second is the mailbox id.
// The value is arbitrary but fixed: "RBMB".
const mailboxLockClass = 0x52424d42

// ErrLocked reports that another session holds the mailbox's sync lock.
var ErrLocked = errors.New("store: mailbox sync already running")

// LockMailboxSync takes the session-level advisory lock of mailbox id on a
// connection of its own and returns the function that releases it (and the
// connection). It returns ErrLocked at once when another session holds it.
// Advisory locks live as long as the session, so a worker that dies frees
// the lock with its connection.
func LockMailboxSync(ctx context.Context, db *gorm.DB, id int64) (func(), error) {
	sqlDB, err := db.DB()
	if err != nil {
		return nil, fmt.Errorf("store: lock mailbox: %w", err)
	}
	c, err := sqlDB.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("store: lock mailbox: %w", err)
	}
	var ok bool
	// The id is folded into int4 for the two-key form; collisions only
	// serialise two unrelated mailboxes, never let two syncs of one run.
	if err := c.QueryRowContext(ctx, `SELECT pg_try_advisory_lock($1, $2)`, mailboxLockClass, int32(id)).Scan(&ok); err != nil {
		c.Close()
		return nil, fmt.Errorf("store: lock mailbox: %w", err)
	}
	if !ok {
		c.Close()
		return nil, ErrLocked
	}
	return func() { unlock(c, id) }, nil
}

func unlock(c *sql.Conn, id int64) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := c.ExecContext(ctx, `SELECT pg_advisory_unlock($1, $2)`, mailboxLockClass, int32(id)); err != nil {
		// Closing a connection whose unlock failed could return it to
		// the pool still holding the lock; discard it instead.
		_ = c.Raw(func(any) error { return driver.ErrBadConn })
	}
	_ = c.Close()
}

// RescheduleMailbox sets when mailbox id is next due.
func RescheduleMailbox(ctx context.Context, db *gorm.DB, id int64, at time.Time) error {
	err := db.WithContext(ctx).Exec(`UPDATE mailboxes SET next_sync_at = ? WHERE id = ?`, at, id).Error
	return Translate("reschedule mailbox", err)
}
