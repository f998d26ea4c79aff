package benchseed_test

import (
	"context"
	"testing"
	"time"

	"github.com/rebound-hq/rebound/internal/dbtest"
	"github.com/rebound-hq/rebound/internal/report/benchseed"
)

// TestSeedConsistent seeds a small workspace and checks that every counter
// (tracking's and the report's own) equals the aggregation over events,
// which is what makes the load benchmark's figures meaningful.
func TestSeedConsistent(t *testing.T) {
	ctx := context.Background()
	db := dbtest.New(t)
	sqlDB, err := db.DB()
	if err != nil {
		t.Fatal(err)
	}
	var steps []string
	res, err := benchseed.Seed(ctx, sqlDB, "seed test", benchseed.Options{Campaigns: 3, Events: 5000, LeadsPer: 40,
		SentPerLead: 2, Days: 10, End: time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)},
		func(step string, _ time.Duration) { steps = append(steps, step) })
	if err != nil {
		t.Fatal(err)
	}
	if len(res.CampaignIDs) != 3 || res.Sent != 240 || res.Events != 5000 || len(steps) < 10 {
		t.Fatalf("seed = %+v, steps %v", res, steps)
	}
	var events, sent, days int64
	db.Raw(`SELECT count(*) FROM bounce_events WHERE workspace_id = ?`, res.WorkspaceID).Scan(&events)
	db.Raw(`SELECT count(*) FROM sent_messages WHERE workspace_id = ?`, res.WorkspaceID).Scan(&sent)
	db.Raw(`SELECT count(DISTINCT day) FROM report_day_counters WHERE workspace_id = ?`, res.WorkspaceID).Scan(&days)
	if events != 5000 || sent != 240 || days < 10 {
		t.Fatalf("stored %d events, %d sent, %d days of counters", events, sent, days)
	}
	if err := benchseed.Verify(ctx, db, res.WorkspaceID); err != nil {
		t.Fatal(err)
	}
	// Verify must fail on a counter that drifted.
	db.Exec(`UPDATE report_day_counters SET soft = soft + 1 WHERE workspace_id = ? AND campaign_id = ? AND day = '2026-11-25'`, res.WorkspaceID, res.CampaignIDs[1])
	if err := benchseed.Verify(ctx, db, res.WorkspaceID); err == nil {
		t.Fatal("Verify accepted a drifted day counter")
	}
	db.Exec(`UPDATE report_day_counters SET soft = soft - 1 WHERE workspace_id = ? AND campaign_id = ? AND day = '2026-11-25'`, res.WorkspaceID, res.CampaignIDs[1])
	if err := benchseed.Verify(ctx, db, res.WorkspaceID); err != nil {
		t.Fatal(err)
	}
	db.Exec(`UPDATE report_campaign_counters SET hard = hard + 1 WHERE workspace_id = ? AND campaign_id = ?`, res.WorkspaceID, res.CampaignIDs[0])
	if err := benchseed.Verify(ctx, db, res.WorkspaceID); err == nil {
		t.Fatal("Verify accepted a drifted counter")
	}
}
