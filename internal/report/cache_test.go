package report

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/rebound-hq/rebound/internal/dbtest"
	"github.com/rebound-hq/rebound/internal/tracking"
)

// TestCacheReadsItsWrites records bounces and sends one at a time while
// another goroutine keeps reading (and so caching) the same reports: a
// report read after a write returns must include it.
func TestCacheReadsItsWrites(t *testing.T) {
	ctx := context.Background()
	db := dbtest.New(t)
	f := &fixture{t: t, ctx: ctx, db: db}
	f.populate("Cache", 1, 10)
	svc := tracking.New(db, tracking.Options{})
	cached := &Service{DB: db, Cache: NewCache(10)}
	day := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
	qs := []Query{
		{WorkspaceID: f.ws, CampaignID: f.camps[0], Zone: time.UTC, From: day, To: day},
		{WorkspaceID: f.ws, Zone: time.UTC, From: day, To: day},
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-done:
				return
			default:
			}
			for _, q := range qs {
				if _, err := cached.Bounces(ctx, q); err != nil {
					t.Error(err)
					return
				}
			}
		}
	}()
	defer func() { close(done); wg.Wait() }()
	for i := range 30 {
		l := f.leads[i%len(f.leads)]
		if _, err := svc.RecordSent(ctx, f.ws, []tracking.Sent{{CampaignID: l.camp, LeadID: l.id, MailboxID: f.mbs[0],
			MessageID: fmt.Sprintf("c%d@x", i), SentAt: day.Add(time.Duration(i) * time.Minute)}}); err != nil {
			t.Fatal(err)
		}
		o := outcomes[i%3]
		raw := dsnMsg{ID: fmt.Sprintf("cache%d", i), Recipient: l.email, Status: o.status, Action: o.action, Diag: o.diag,
			Campaign: strconv.FormatInt(l.camp, 10), Lead: strconv.FormatInt(l.id, 10)}.bytes()
		if _, err := svc.Record(ctx, tracking.Incoming{WorkspaceID: f.ws, MailboxID: f.mbs[0], Folder: "INBOX", UID: uint32(i + 1),
			Raw: raw, ReceivedAt: day.Add(time.Duration(i) * time.Minute)}); err != nil {
			t.Fatal(err)
		}
		for _, q := range qs {
			r, err := cached.Bounces(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			if r.Totals.Sent != int64(i+1) || r.Totals.Events != int64(i+1) || r.DailyTotals.Events != int64(i+1) {
				t.Fatalf("after write %d, campaign %d: sent %d, events %d, daily events %d", i+1, q.CampaignID,
					r.Totals.Sent, r.Totals.Events, r.DailyTotals.Events)
			}
		}
	}
	// A renamed campaign shows its new name at once.
	if err := db.Exec(`UPDATE campaigns SET name = 'Renamed' WHERE id = ?`, f.camps[0]).Error; err != nil {
		t.Fatal(err)
	}
	if r, err := cached.Bounces(ctx, qs[0]); err != nil || r.CampaignName != "Renamed" {
		t.Fatalf("after rename: %v, %v", r.CampaignName, err)
	}
}
