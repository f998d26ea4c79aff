// Package benchseed fills a migrated database with a synthetic workspace for
// the report benchmarks (make seed-bench, cmd/loadbench, BenchmarkBounces):
// campaigns, mailboxes, leads, sent messages, stored messages and bounce
// events written with set-based SQL (generate_series), then the report
// counters computed from them in the same way tracking keeps them, so the
// counters agree with the events exactly (Verify checks it).
//
// The data is deterministic for given Options: event i belongs to campaign
// i mod Campaigns, its kind, class, label and code follow a fixed mix (about
// 45% bounces, a third of them hard), and times spread over Days days
// ending at End.
package benchseed

import (
	"context"
	"database/sql"
	"fmt"
	"reflect"
	"strings"
	"time"

	"gorm.io/gorm"

	"github.com/rebound-hq/rebound/internal/store"
)

// Options size the seed. Zero fields take the defaults of make seed-bench.
type Options struct {
	Campaigns     int       // default 100
	Events        int       // bounce events, default 1,000,000
	LeadsPer      int       // leads per campaign, default 2,000
	SentPerLead   int       // sent messages per lead, default 5
	ResultsPerRaw int       // events per stored message, default 4
	Days          int       // time span of sends and events, default 90
	End           time.Time // end of the span, default now (truncated to the hour)
}

func (o *Options) defaults() {
	if o.Campaigns <= 0 {
		o.Campaigns = 100
	}
	if o.Events <= 0 {
		o.Events = 1_000_000
	}
	if o.LeadsPer <= 0 {
		o.LeadsPer = 2000
	}
	if o.SentPerLead <= 0 {
		o.SentPerLead = 5
	}
	if o.ResultsPerRaw <= 0 {
		o.ResultsPerRaw = 4
	}
	if o.Days <= 0 {
		o.Days = 90
	}
	if o.End.IsZero() {
		o.End = time.Now().UTC().Truncate(time.Hour)
	}
}

// Result names what Seed created.
type Result struct {
	WorkspaceID int64
	CampaignIDs []int64
	Sent        int64
	Events      int64
}

// aggregate returns the store's named from-scratch counter query, without
// its closing semicolon, to be used as a subquery.
func aggregate(name string) string {
	return strings.TrimSuffix(store.Query(name), ";")
}

// step is one statement of the seed, with a name for progress output.
type step struct {
	name string
	sql  string
}

// Seed creates one workspace named name and its data in db (migrated to
// the current schema), reporting each step's duration to progress (may be
// nil). It runs in one transaction.
func Seed(ctx context.Context, db *sql.DB, name string, o Options, progress func(step string, d time.Duration)) (*Result, error) {
	o.defaults()
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("benchseed: begin: %w", err)
	}
	defer tx.Rollback() //nolint:errcheck // after Commit it is a no-op
	var ws int64
	if err := tx.QueryRowContext(ctx, `INSERT INTO workspaces (name) VALUES ($1) RETURNING id`, name).Scan(&ws); err != nil {
		return nil, fmt.Errorf("benchseed: workspace: %w", err)
	}
	span := fmt.Sprintf("%d", o.Days*86400)
	end := o.End.UTC().Format(time.RFC3339)
	leads := o.Campaigns * o.LeadsPer
	sent := leads * o.SentPerLead
	raws := (o.Events + o.ResultsPerRaw - 1) / o.ResultsPerRaw
	steps := []step{
		{"mailboxes", `INSERT INTO mailboxes (workspace_id, name, host, port, username, secret_sealed, secret_key_id)
			SELECT $1, 'bench sender ' || g, 'imap.example.org', 993, 'sender' || g, '\x00'::bytea, 'bench'
			FROM generate_series(1, 3) g`},
		{"campaigns", fmt.Sprintf(`INSERT INTO campaigns (workspace_id, name)
			SELECT $1, 'bench campaign ' || g FROM generate_series(1, %d) g`, o.Campaigns)},
		// Lead g of campaign c: address l<g>@<domain by g mod 6>.
		{"leads", fmt.Sprintf(`INSERT INTO leads (workspace_id, campaign_id, email, last_sent_at)
			SELECT $1, c.id, 'l' || g || '.c' || c.id || '@' ||
			       (ARRAY['gmail.com','outlook.com','yahoo.com','icloud.com','example.com','example.org'])[1 + g %% 6],
			       timestamptz '%s'
			FROM campaigns c, generate_series(0, %d) g WHERE c.workspace_id = $1`, end, o.LeadsPer-1)},
		{"sent messages", fmt.Sprintf(`INSERT INTO sent_messages (workspace_id, campaign_id, lead_id, mailbox_id, message_id,
			       recipient, provider, sent_at)
			SELECT $1, l.campaign_id, l.id, m.ids[1 + l.id %% 3], 's' || l.id || '.' || s || '@bench.example', l.email,
			       CASE split_part(l.email, '@', 2) WHEN 'gmail.com' THEN 'google' WHEN 'outlook.com' THEN 'microsoft'
			            WHEN 'yahoo.com' THEN 'yahoo' WHEN 'icloud.com' THEN 'apple' ELSE 'other' END,
			       timestamptz '%s' - make_interval(secs => ((l.id * 7919 + s * 104729) %% %s)::double precision)
			FROM leads l, generate_series(1, %d) s,
			     (SELECT array_agg(id ORDER BY id) AS ids FROM mailboxes WHERE workspace_id = $1) m
			WHERE l.workspace_id = $1`, end, span, o.SentPerLead)},
		{"raw messages", fmt.Sprintf(`INSERT INTO raw_messages (workspace_id, dedupe_hash, content, size, received_at, decode_status, result_count)
			SELECT $1::bigint, sha256(($1::bigint::text || ':' || g)::bytea), '\x1f8b'::bytea, 2, timestamptz '%s', 'decoded', %d
			FROM generate_series(1, %d) g`, end, o.ResultsPerRaw, raws)},
		// Event i: campaign i mod C, lead (i / C) mod L of it, mix by
		// r = (i * 37) mod 100, time spread by a multiplicative hash.
		{"bounce events", fmt.Sprintf(`WITH r AS (
				SELECT min(id) AS lo FROM raw_messages WHERE workspace_id = $1
			), c AS (
				SELECT array_agg(id ORDER BY id) AS ids FROM campaigns WHERE workspace_id = $1
			), m AS (
				SELECT array_agg(id ORDER BY id) AS ids FROM mailboxes WHERE workspace_id = $1
			), l AS (
				SELECT campaign_id, array_agg(id ORDER BY id) AS ids, array_agg(email ORDER BY id) AS emails
				FROM leads WHERE workspace_id = $1 GROUP BY campaign_id
			), mix(lo, hi, kind, class, reason, label, status, reply) AS (VALUES
				(0, 12, 'bounce', 'soft', 'mailboxfull', 'Mailbox full', '4.2.2', '452'),
				(12, 20, 'bounce', 'soft', 'systemerror', 'Temporary failure', '4.3.0', '451'),
				(20, 26, 'bounce', 'soft', 'speeding', 'Rate limited', '4.7.28', '421'),
				(26, 30, 'bounce', 'soft', 'blocked', 'Blocked', '4.7.1', '450'),
				(30, 40, 'bounce', 'hard', 'userunknown', 'Invalid recipient', '5.1.1', '550'),
				(40, 44, 'bounce', 'hard', 'blocked', 'Blocked', '5.7.1', '550'),
				(44, 47, 'bounce', 'hard', 'authfailure', 'Policy or authentication', '5.7.26', '550'),
				(47, 50, 'bounce', 'hard', 'hostunknown', 'Domain not found', '5.1.2', '550'),
				(50, 75, 'delayed', NULL, 'networkerror', 'Delayed', '4.4.1', '451'),
				(75, 92, 'auto_reply', NULL, 'vacation', 'Auto-reply', '', ''),
				(92, 95, 'complaint', NULL, 'feedback', 'Complaint', '', ''),
				(95, 100, 'bounce', 'hard', 'spamdetected', 'Spam or content', '5.7.1', '554')
			), e AS (
				SELECT g, c.ids[1 + g %% %[2]d] AS campaign_id, (g / %[2]d) %% %[3]d AS li, (g * 37) %% 100 AS r
				FROM generate_series(0, %[4]d) g, c
			)
			INSERT INTO bounce_events (workspace_id, raw_message_id, result_index, kind, class, reason, label, status,
			       reply_code, provider, recipient, matched_by, campaign_id, lead_id, sending_mailbox_id, occurred_at)
			SELECT $1, r.lo + e.g / %[5]d, e.g %% %[5]d, mix.kind, mix.class, mix.reason, mix.label, mix.status, mix.reply,
			       CASE split_part(l.emails[1 + e.li], '@', 2) WHEN 'gmail.com' THEN 'google' WHEN 'outlook.com' THEN 'microsoft'
			            WHEN 'yahoo.com' THEN 'yahoo' WHEN 'icloud.com' THEN 'apple' ELSE 'other' END,
			       l.emails[1 + e.li], 'message_id', e.campaign_id, l.ids[1 + e.li], m.ids[1 + l.ids[1 + e.li] %% 3],
			       timestamptz '%[1]s' - make_interval(secs => ((e.g::bigint * 2654435761) %% %[6]s)::double precision)
			FROM e JOIN l ON l.campaign_id = e.campaign_id
			JOIN mix ON e.r >= mix.lo AND e.r < mix.hi, r, m`,
			end, o.Campaigns, o.LeadsPer, o.Events-1, o.ResultsPerRaw, span)},
		// The counters from the store's own from-scratch aggregation (the
		// queries RecountCounters and Verify use), written set-based.
		{"campaign counters", `INSERT INTO report_campaign_counters (workspace_id, campaign_id, sent, events, bounced, hard,
			       soft, complaints, auto_replies, delayed, delivered, leads_bounced)
			SELECT $1::bigint, a.* FROM (` + aggregate("aggregate-campaign-counters") + `) a`},
		{"dimension counters", `INSERT INTO report_dimension_counters (workspace_id, campaign_id, dimension, value, sent,
			       events, bounced, hard, soft, complaints, auto_replies, delayed, delivered)
			SELECT $1::bigint, a.* FROM (` + aggregate("aggregate-dimension-counters") + `) a`},
		{"label counters", `INSERT INTO report_label_counters (workspace_id, campaign_id, label, class, code, events)
			SELECT $1::bigint, a.* FROM (` + aggregate("aggregate-label-counters") + `) a`},
		{"period counters", `INSERT INTO report_period_counters (workspace_id, campaign_id, period_start, sent, events,
			       bounced, hard, soft, complaints, auto_replies, delayed, delivered)
			SELECT $1::bigint, a.* FROM (` + aggregate("aggregate-period-counters") + `) a`},
		{"lead bounce counts", `UPDATE leads l SET bounce_count = b.n, last_event_at = b.last
			FROM (SELECT lead_id, count(*) FILTER (WHERE kind = 'bounce') AS n, max(occurred_at) AS last
			      FROM bounce_events WHERE workspace_id = $1 GROUP BY 1) b
			WHERE l.id = b.lead_id AND l.workspace_id = $1`},
	}
	for _, s := range steps {
		start := time.Now()
		if _, err := tx.ExecContext(ctx, s.sql, ws); err != nil {
			return nil, fmt.Errorf("benchseed: %s: %w", s.name, err)
		}
		if progress != nil {
			progress(s.name, time.Since(start))
		}
	}
	res := &Result{WorkspaceID: ws, Sent: int64(sent), Events: int64(o.Events)}
	rows, err := tx.QueryContext(ctx, `SELECT id FROM campaigns WHERE workspace_id = $1 ORDER BY id`, ws)
	if err != nil {
		return nil, fmt.Errorf("benchseed: campaigns: %w", err)
	}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return nil, fmt.Errorf("benchseed: campaigns: %w", err)
		}
		res.CampaignIDs = append(res.CampaignIDs, id)
	}
	rows.Close()
	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("benchseed: commit: %w", err)
	}
	start := time.Now()
	if _, err := db.ExecContext(ctx, `ANALYZE`); err != nil {
		return nil, fmt.Errorf("benchseed: analyze: %w", err)
	}
	if progress != nil {
		progress("analyze", time.Since(start))
	}
	return res, nil
}

// Verify checks that the workspace's report counters equal the aggregation
// from scratch over its events and sent messages (store.AggregateCounters),
// that report_block_counters equals its own aggregation and
// report_day_counters the sums of report_period_counters. It scans every
// event: for checking a seed, never for serving.
func Verify(ctx context.Context, db *gorm.DB, workspaceID int64) error {
	stored, err := store.StoredCounters(ctx, db, workspaceID)
	if err != nil {
		return fmt.Errorf("benchseed: verify: %w", err)
	}
	agg, err := store.AggregateCounters(ctx, db, workspaceID)
	if err != nil {
		return fmt.Errorf("benchseed: verify: %w", err)
	}
	if !reflect.DeepEqual(stored, agg) {
		return fmt.Errorf("benchseed: verify: stored counters differ from the aggregation over events "+
			"(campaigns %d/%d, dimensions %d/%d, labels %d/%d, periods %d/%d rows)",
			len(stored.Campaigns), len(agg.Campaigns), len(stored.Dimensions), len(agg.Dimensions),
			len(stored.Labels), len(agg.Labels), len(stored.Periods), len(agg.Periods))
	}
	var diff int64
	err = db.WithContext(ctx).Raw(`
		WITH a AS (
			SELECT COALESCE(campaign_id, 0) AS campaign_id,
			       date_bin('15 minutes', occurred_at, timestamptz '2000-01-01 00:00:00+00') AS period_start,
			       count(*) AS bounced,
			       count(*) FILTER (WHERE label IN ('Blocked', 'Spam or content', 'Policy or authentication')) AS blocks
			FROM bounce_events WHERE workspace_id = ? AND kind = 'bounce' GROUP BY 1, 2
		), s AS (
			SELECT campaign_id, period_start, bounced, blocks FROM report_block_counters
			WHERE workspace_id = ? AND (bounced, blocks) <> (0, 0)
		)
		SELECT count(*) FROM a FULL JOIN s USING (campaign_id, period_start)
		WHERE a.bounced IS DISTINCT FROM s.bounced OR a.blocks IS DISTINCT FROM s.blocks`, workspaceID, workspaceID).Scan(&diff).Error
	if err != nil {
		return fmt.Errorf("benchseed: verify blocks: %w", err)
	}
	if diff != 0 {
		return fmt.Errorf("benchseed: verify: %d block counter rows differ from the aggregation over events", diff)
	}
	err = db.WithContext(ctx).Raw(`
		WITH a AS (
			SELECT campaign_id, (period_start AT TIME ZONE 'UTC')::date AS day, sum(sent) AS sent, sum(events) AS events,
			       sum(bounced) AS bounced, sum(hard) AS hard, sum(soft) AS soft, sum(complaints) AS complaints,
			       sum(auto_replies) AS auto_replies, sum(delayed) AS delayed, sum(delivered) AS delivered
			FROM report_period_counters WHERE workspace_id = ? GROUP BY 1, 2
		), d AS (SELECT * FROM report_day_counters WHERE workspace_id = ?)
		SELECT count(*) FROM a FULL JOIN d USING (campaign_id, day)
		WHERE (a.sent, a.events, a.bounced, a.hard, a.soft, a.complaints, a.auto_replies, a.delayed, a.delivered)
		      IS DISTINCT FROM (d.sent, d.events, d.bounced, d.hard, d.soft, d.complaints, d.auto_replies, d.delayed, d.delivered)
		  AND NOT (a.campaign_id IS NULL AND (d.sent, d.events, d.bounced, d.hard, d.soft, d.complaints, d.auto_replies,
		                                      d.delayed, d.delivered) = (0, 0, 0, 0, 0, 0, 0, 0, 0))`,
		workspaceID, workspaceID).Scan(&diff).Error
	if err != nil {
		return fmt.Errorf("benchseed: verify days: %w", err)
	}
	if diff != 0 {
		return fmt.Errorf("benchseed: verify: %d day counter rows differ from their periods", diff)
	}
	return nil
}
