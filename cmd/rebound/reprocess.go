package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"time"

	"gorm.io/gorm"

	"github.com/rebound-hq/rebound/internal/app"
	"github.com/rebound-hq/rebound/internal/config"
	"github.com/rebound-hq/rebound/internal/store"
	"github.com/rebound-hq/rebound/internal/tracking"
)

const reprocessUsage = `usage: rebound reprocess [--since DATE] [--batch N] [--recount]
Re-decodes the stored raw messages with this binary's decoder and corrects
their bounce events, lead timelines, lead states, suppressions and report
counters. Running it twice changes nothing the second time.
  --since DATE  only messages received at or after DATE (2006-01-02, UTC, or
                RFC 3339 such as 2006-01-02T15:04:05Z); default: all
  --batch N     messages per transaction (default 200)
  --recount     afterwards, rebuild every workspace's report counters from
                scratch over its events and sent messages (a repair: scans)
The database is DATABASE_URL (default: the private one of make services-up).`

// runReprocess implements `rebound reprocess` over tracking.Service.Reprocess.
func runReprocess(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("reprocess", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	since := fs.String("since", "", "")
	batch := fs.Int("batch", 200, "")
	recount := fs.Bool("recount", false, "")
	if err := fs.Parse(args); err != nil || fs.NArg() != 0 {
		if err == flag.ErrHelp {
			fmt.Fprintln(stdout, reprocessUsage)
			return 0
		}
		fmt.Fprintf(stderr, "rebound reprocess: bad arguments %q\n%s\n", args, reprocessUsage)
		return 2
	}
	var from time.Time
	if *since != "" {
		t, err := parseSince(*since)
		if err != nil {
			fmt.Fprintf(stderr, "rebound reprocess: --since wants a date such as 2026-11-30 or 2026-11-30T08:00:00Z, got %q\n", *since)
			return 2
		}
		from = t
	}
	if *batch < 1 || *batch > 10000 {
		fmt.Fprintf(stderr, "rebound reprocess: --batch wants a number from 1 to 10000, got %d\n", *batch)
		return 2
	}
	cfg, err := config.Load()
	if err != nil {
		fmt.Fprintf(stderr, "rebound reprocess: %v\n", err)
		return 1
	}
	db, sqlDB, err := app.OpenDB(ctx, cfg.DatabaseURL, 4)
	if err != nil {
		fmt.Fprintf(stderr, "rebound reprocess: %v\n", err)
		return 1
	}
	defer sqlDB.Close()
	svc := app.NewTracking(cfg, db)
	start := time.Now()
	st, err := svc.Reprocess(ctx, tracking.ReprocessOptions{
		Since:     from,
		BatchSize: *batch,
		Progress: func(st tracking.ReprocessStats) {
			fmt.Fprintf(stderr, "reprocess: %d messages, %d changed\n", st.Messages, st.Changed)
		},
	})
	fmt.Fprintf(stdout, "messages %d  changed %d  events created %d  updated %d  deleted %d  leads replayed %d  still undecoded %d  skipped (bytes not kept) %d  (%s)\n",
		st.Messages, st.Changed, st.EventsCreated, st.EventsUpdated, st.EventsDeleted, st.LeadsReplayed, st.UndecodedAfter,
		st.Skipped, time.Since(start).Round(time.Millisecond))
	if err != nil {
		fmt.Fprintf(stderr, "rebound reprocess: %v\n", err)
		return 1
	}
	if *recount {
		var ids []int64
		if err := db.WithContext(ctx).Model(&store.Workspace{}).Order("id").Pluck("id", &ids).Error; err != nil {
			fmt.Fprintf(stderr, "rebound reprocess: list workspaces: %v\n", err)
			return 1
		}
		for _, id := range ids {
			err := db.WithContext(ctx).Transaction(func(tx *gorm.DB) error { return store.RecountCounters(ctx, tx, id) })
			if err != nil {
				fmt.Fprintf(stderr, "rebound reprocess: recount workspace %d: %v\n", id, err)
				return 1
			}
		}
		fmt.Fprintf(stdout, "counters recounted for %d workspaces\n", len(ids))
	}
	return 0
}

// parseSince reads a date (UTC midnight) or an RFC 3339 time.
func parseSince(s string) (time.Time, error) {
	if t, err := time.Parse("2006-01-02", s); err == nil {
		return t, nil
	}
	return time.Parse(time.RFC3339, s)
}
