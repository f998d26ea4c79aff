package tasks

import (
	"context"
	"testing"
	"time"

	"github.com/rebound-hq/rebound/internal/mailbox/mailboxtest"
	"github.com/rebound-hq/rebound/internal/tracking"
)

// TestPurgeRawContent records bounces received 200 and 10 days ago and
// purges with a 180-day retention: the old ones lose their bytes only, in
// batches, once.
func TestPurgeRawContent(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	now := time.Now().UTC()
	var in []tracking.Incoming
	for i := range 30 {
		age := 10 * 24 * time.Hour
		if i < 20 {
			age = 200 * 24 * time.Hour
		}
		in = append(in, tracking.Incoming{WorkspaceID: f.ws, Raw: mailboxtest.Bounce(i, now), ReceivedAt: now.Add(-age - time.Duration(i)*time.Minute)})
	}
	if _, err := f.syncer.Tracking.RecordBatch(ctx, in, nil); err != nil {
		t.Fatal(err)
	}
	events := f.count(t, `SELECT count(*) FROM bounce_events WHERE workspace_id = ?`, f.ws)
	if events != 30 {
		t.Fatalf("%d events recorded, want 30", events)
	}

	h := &DatabaseHousekeeping{DB: f.db, RawRetention: 180 * 24 * time.Hour}
	n, err := h.PurgeRawContent(ctx)
	if err != nil || n != 20 {
		t.Fatalf("PurgeRawContent = %d, %v; want 20", n, err)
	}
	if got := f.count(t, `SELECT count(*) FROM raw_messages WHERE octet_length(content) = 0 AND content_purged_at IS NOT NULL AND received_at < now() - interval '180 days'`); got != 20 {
		t.Fatalf("%d old messages emptied and stamped, want 20", got)
	}
	if got := f.count(t, `SELECT count(*) FROM raw_messages WHERE octet_length(content) > 0 AND content_purged_at IS NULL`); got != 10 {
		t.Fatalf("%d recent messages kept whole, want 10", got)
	}
	if got := f.count(t, `SELECT count(*) FROM bounce_events WHERE workspace_id = ?`, f.ws); got != events {
		t.Fatalf("events after the purge: %d, want %d", got, events)
	}
	if n, err := h.PurgeRawContent(ctx); err != nil || n != 0 {
		t.Fatalf("second purge = %d, %v; want 0", n, err)
	}
	// A copy of a purged message still deduplicates (the hash stays).
	out, err := f.syncer.Tracking.RecordBatch(ctx, in[:1], nil)
	if err != nil || !out[0].Duplicate {
		t.Fatalf("re-recording a purged message: %+v, %v; want a duplicate", out, err)
	}
	// Retention 0 keeps everything.
	if n, err := (&DatabaseHousekeeping{DB: f.db}).PurgeRawContent(ctx); err != nil || n != 0 {
		t.Fatalf("purge without retention = %d, %v", n, err)
	}
	// A reprocess task starts within the retention: the purged messages
	// are not re-decoded (their bytes are gone).
	r := &Reprocessor{Tracking: f.syncer.Tracking, RawRetention: 180 * 24 * time.Hour}
	task, err := NewReprocessTask(ReprocessPayload{})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.ProcessTask(ctx, task); err != nil {
		t.Fatalf("reprocess after the purge: %v", err)
	}
	if got := f.count(t, `SELECT count(*) FROM bounce_events WHERE workspace_id = ?`, f.ws); got != events {
		t.Fatalf("events after reprocessing: %d, want %d", got, events)
	}
}

// TestPurgeRawContentInBatches purges more than one batch.
func TestPurgeRawContentInBatches(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	old := time.Now().Add(-400 * 24 * time.Hour)
	if err := f.db.Exec(`INSERT INTO raw_messages (workspace_id, dedupe_hash, content, size, received_at, decode_status)
		SELECT ?, sha256(i::text::bytea), '\x1f8b', 2, ?, 'not_bounce' FROM generate_series(1, ?) i`,
		f.ws, old, purgeBatch+250).Error; err != nil {
		t.Fatal(err)
	}
	h := &DatabaseHousekeeping{DB: f.db, RawRetention: 180 * 24 * time.Hour}
	if n, err := h.PurgeRawContent(ctx); err != nil || n != purgeBatch+250 {
		t.Fatalf("PurgeRawContent = %d, %v; want %d", n, err, purgeBatch+250)
	}
}

// TestEnsurePartitions creates partitions ahead for a clock two years on,
// moving an event that waited in the default partition.
func TestEnsurePartitions(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	future := time.Now().UTC().AddDate(2, 0, 0)
	in := []tracking.Incoming{{WorkspaceID: f.ws, Raw: mailboxtest.Bounce(1, future), ReceivedAt: future}}
	if _, err := f.syncer.Tracking.RecordBatch(ctx, in, nil); err != nil {
		t.Fatal(err)
	}
	if got := f.count(t, `SELECT count(*) FROM ONLY bounce_events_default`); got != 1 {
		t.Fatalf("%d events in the default partition, want the future one", got)
	}
	h := &DatabaseHousekeeping{DB: f.db, Now: func() time.Time { return future }}
	n, err := h.EnsurePartitions(ctx)
	if err != nil || n != 2*(DefaultMonthsAhead+1) {
		t.Fatalf("EnsurePartitions = %d, %v; want %d", n, err, 2*(DefaultMonthsAhead+1))
	}
	if n, err := h.EnsurePartitions(ctx); err != nil || n != 0 {
		t.Fatalf("second EnsurePartitions = %d, %v; want 0", n, err)
	}
	part := "bounce_events_p" + future.Format("2006_01")
	if got := f.count(t, `SELECT count(*) FROM `+part); got != 1 {
		t.Fatalf("%d events in %s, want 1", got, part)
	}
	if got := f.count(t, `SELECT count(*) FROM ONLY bounce_events_default`); got != 0 {
		t.Fatalf("%d events left in the default partition", got)
	}
	if got := f.count(t, `SELECT count(*) FROM bounce_events WHERE workspace_id = ?`, f.ws); got != 1 {
		t.Fatalf("%d events in all, want 1", got)
	}
	// The task runs both steps.
	if err := h.ProcessTask(ctx, NewDatabaseHousekeepingTask()); err != nil {
		t.Fatal(err)
	}
}
