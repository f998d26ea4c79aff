package migrations_test

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// TestPartitionMigrationKeepsData fills the version-40 schema with events
// and timeline entries over several months (one five years old), applies
// 00050 (monthly partitions), checks that every row, reference and counter
// survived and behaves as before (dedupe key, cascades from raw messages and
// campaigns, identity), creates a partition over rows parked in the default
// partition, then rolls back to 40 and checks the rows again.
func TestPartitionMigrationKeepsData(t *testing.T) {
	ctx := context.Background()
	db, p := emptyDB(t)
	if _, err := p.UpTo(ctx, 40); err != nil {
		t.Fatal(err)
	}
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := db.ExecContext(ctx, q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	count := func(q string, args ...any) int64 {
		t.Helper()
		var n int64
		if err := db.QueryRowContext(ctx, q, args...).Scan(&n); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return n
	}

	now := time.Now().UTC()
	months := []time.Time{
		now.AddDate(-5, 0, 0),                        // older than 24 months: default partition
		now.AddDate(0, -2, 0), now.AddDate(0, -1, 0), // partitions of their own
		now,
	}
	exec(`INSERT INTO workspaces (name) VALUES ('w')`)
	exec(`INSERT INTO campaigns (workspace_id, name) VALUES (1, 'c')`)
	exec(`INSERT INTO leads (workspace_id, campaign_id, email) VALUES (1, 1, 'a@example.org')`)
	for i, at := range months {
		exec(`INSERT INTO raw_messages (workspace_id, dedupe_hash, content, size, received_at, decode_status)
		      VALUES (1, sha256($1::bytea), '\x00', 1, $2, 'decoded')`, fmt.Sprint(i), at)
		for r := range 2 {
			exec(`INSERT INTO bounce_events (workspace_id, raw_message_id, result_index, kind, class, label,
			      matched_by, campaign_id, lead_id, occurred_at)
			      VALUES (1, $1, $2, 'bounce', 'hard', 'Blocked', 'header', 1, 1, $3)`, i+1, r, at)
		}
		exec(`INSERT INTO lead_activities (workspace_id, lead_id, campaign_id, activity, bounce_event_id, occurred_at)
		      VALUES (1, 1, 1, 'bounce', $1, $2)`, 2*i+1, at)
	}
	exec(`INSERT INTO suppressions (workspace_id, email, reason, source, source_event_id)
	      VALUES (1, 'a@example.org', 'blocked', 'bounce', 3)`)
	blocks := count(`SELECT sum(blocks) FROM report_block_counters`)
	if blocks != 8 {
		t.Fatalf("block counters before: %d, want 8", blocks)
	}

	if _, err := p.UpTo(ctx, 50); err != nil {
		t.Fatal(err)
	}
	if n := count(`SELECT count(*) FROM bounce_events`); n != 8 {
		t.Fatalf("%d events after partitioning, want 8", n)
	}
	if n := count(`SELECT count(*) FROM ONLY bounce_events_default`); n != 2 {
		t.Fatalf("%d events in the default partition, want the 2 five-year-old ones", n)
	}
	cur := "bounce_events_p" + now.Format("2006_01")
	if n := count(`SELECT count(*) FROM ` + cur); n != 2 {
		t.Fatalf("%d events in %s, want 2", n, cur)
	}
	ahead := "lead_activities_p" + time.Date(now.Year(), now.Month()+3, 1, 0, 0, 0, 0, time.UTC).Format("2006_01")
	if n := count(`SELECT count(*) FROM pg_class WHERE relname = $1`, ahead); n != 1 {
		t.Fatalf("partition %s (three months ahead) missing", ahead)
	}
	if n := count(`SELECT count(*) FROM lead_activities`); n != 4 {
		t.Fatalf("%d timeline entries after partitioning, want 4", n)
	}
	if n := count(`SELECT sum(blocks) FROM report_block_counters`); n != blocks {
		t.Fatalf("block counters changed by the migration: %d, want %d", n, blocks)
	}

	// The dedupe key still refuses a second copy of an event.
	ins := `INSERT INTO bounce_events (workspace_id, raw_message_id, result_index, kind, occurred_at)
	        VALUES (1, 4, 0, 'delayed', $1)
	        ON CONFLICT (raw_message_id, result_index, occurred_at) DO NOTHING`
	exec(ins, months[3])
	if n := count(`SELECT count(*) FROM bounce_events`); n != 8 {
		t.Fatalf("duplicate event inserted: %d events", n)
	}
	// Identity continues after the moved rows (the refused copy took 9).
	var id int64
	if err := db.QueryRowContext(ctx, `INSERT INTO bounce_events (workspace_id, raw_message_id, result_index, kind, class, label, occurred_at)
	      VALUES (1, 4, 5, 'bounce', 'soft', 'Blocked', $1) RETURNING id`, months[3]).Scan(&id); err != nil {
		t.Fatal(err)
	}
	if id != 10 {
		t.Fatalf("new event id %d, want 10", id)
	}
	if n := count(`SELECT sum(blocks) FROM report_block_counters`); n != blocks+1 {
		t.Fatalf("counter trigger lost: blocks %d, want %d", n, blocks+1)
	}
	// Deleting a raw message cascades to its events, and from them to the
	// timeline and the suppression's source (the replaced foreign keys).
	exec(`DELETE FROM raw_messages WHERE id = 2`)
	if n := count(`SELECT count(*) FROM bounce_events WHERE raw_message_id = 2`); n != 0 {
		t.Fatalf("%d events of a deleted raw message left", n)
	}
	if n := count(`SELECT count(*) FROM lead_activities WHERE bounce_event_id = 3`); n != 0 {
		t.Fatal("timeline entry of a deleted event left")
	}
	if n := count(`SELECT count(*) FROM suppressions WHERE source_event_id IS NULL`); n != 1 {
		t.Fatal("suppression source not cleared")
	}
	if n := count(`SELECT sum(blocks) FROM report_block_counters`); n != blocks-1 {
		t.Fatalf("after deleting 2 events: blocks %d, want %d", n, blocks-1)
	}
	// Moving events to another campaign and deleting it moves their
	// counters to campaign 0 (triggers fired by an UPDATE and by the foreign
	// key's SET NULL on the partitioned table).
	exec(`INSERT INTO campaigns (workspace_id, name) VALUES (1, 'c2')`)
	exec(`UPDATE bounce_events SET campaign_id = 2 WHERE raw_message_id = 4 AND campaign_id = 1`)
	if n := count(`SELECT sum(blocks) FROM report_block_counters WHERE campaign_id = 2`); n != 2 {
		t.Fatalf("campaign 2 counts %d blocks, want 2", n)
	}
	exec(`DELETE FROM campaigns WHERE id = 2`)
	if n := count(`SELECT coalesce(sum(blocks), 0) FROM report_block_counters WHERE campaign_id = 2`); n != 0 {
		t.Fatalf("deleted campaign 2 still counts %d blocks", n)
	}
	if n := count(`SELECT sum(blocks) FROM report_block_counters WHERE campaign_id = 0`); n != 3 {
		t.Fatalf("campaign 0 counts %d blocks, want 3", n)
	}
	if n := count(`SELECT count(*) FROM bounce_events WHERE campaign_id IS NULL`); n != 3 {
		t.Fatalf("%d events unmatched after deleting the campaign, want 3", n)
	}

	// A month partition over rows parked in the default partition.
	old := months[0]
	var created bool
	if err := db.QueryRowContext(ctx, `SELECT rebound_ensure_month_partition('bounce_events', $1)`, old).Scan(&created); err != nil || !created {
		t.Fatalf("ensure partition: %v, %v", created, err)
	}
	if err := db.QueryRowContext(ctx, `SELECT rebound_ensure_month_partition('bounce_events', $1)`, old).Scan(&created); err != nil || created {
		t.Fatalf("ensure partition again: %v, %v; want false", created, err)
	}
	if n := count(`SELECT count(*) FROM ONLY bounce_events_default`); n != 0 {
		t.Fatalf("%d rows left in the default partition", n)
	}
	if n := count(`SELECT count(*) FROM bounce_events_p` + old.Format("2006_01")); n != 2 {
		t.Fatalf("%d rows in the new partition, want 2", n)
	}
	if n := count(`SELECT count(*) FROM bounce_events`); n != 7 {
		t.Fatalf("%d events after moving, want 7", n)
	}

	if _, err := p.DownTo(ctx, 40); err != nil {
		t.Fatal(err)
	}
	if n := count(`SELECT count(*) FROM bounce_events`); n != 7 {
		t.Fatalf("%d events after rolling back, want 7", n)
	}
	if n := count(`SELECT count(*) FROM lead_activities`); n != 3 {
		t.Fatalf("%d timeline entries after rolling back, want 3", n)
	}
	if n := count(`SELECT count(*) FROM pg_constraint WHERE conname IN ('lead_activities_bounce_event_id_fkey', 'suppressions_source_event_id_fkey', 'bounce_events_dedupe_key')`); n != 3 {
		t.Fatalf("%d of the 3 original constraints back", n)
	}
	exec(`INSERT INTO bounce_events (workspace_id, raw_message_id, result_index, kind, occurred_at)
	      VALUES (1, 4, 0, 'delayed', now()) ON CONFLICT (raw_message_id, result_index) DO NOTHING`)
	if n := count(`SELECT max(id) FROM bounce_events`); n != 10 {
		t.Fatalf("max id after rolling back %d, want 10", n)
	}
}
