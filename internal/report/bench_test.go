package report

import (
	"context"
	"testing"
	"time"

	"github.com/rebound-hq/rebound/internal/dbtest"
	"github.com/rebound-hq/rebound/internal/report/benchseed"
)

// BenchmarkBounces reads a campaign's 30-day report in Europe/Paris over a
// seeded workspace (10 campaigns, 100,000 events, 10,000 sends, spread over
// 90 days): "computed" runs the report's statement every time (no cache),
// "cached" serves it from the cache after the stamp query. make
// bench-report measures the HTTP route under load (cmd/loadbench).
func BenchmarkBounces(b *testing.B) {
	ctx := context.Background()
	db := dbtest.New(b)
	sqlDB, err := db.DB()
	if err != nil {
		b.Fatal(err)
	}
	end := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	res, err := benchseed.Seed(ctx, sqlDB, "bench", benchseed.Options{Campaigns: 10, Events: 100_000, LeadsPer: 200,
		SentPerLead: 5, End: end}, nil)
	if err != nil {
		b.Fatal(err)
	}
	zone, _ := time.LoadLocation("Europe/Paris")
	from, to, _, err := Days("", "", zone, end)
	if err != nil {
		b.Fatal(err)
	}
	run := func(b *testing.B, s *Service) {
		i := 0
		for b.Loop() {
			q := Query{WorkspaceID: res.WorkspaceID, CampaignID: res.CampaignIDs[i%len(res.CampaignIDs)], Zone: zone, From: from, To: to}
			if _, _, err := s.BouncesJSON(ctx, q); err != nil {
				b.Fatal(err)
			}
			i++
		}
	}
	b.Run("computed", func(b *testing.B) { run(b, &Service{DB: db}) })
	b.Run("cached", func(b *testing.B) { run(b, &Service{DB: db, Cache: NewCache(100)}) })
}
