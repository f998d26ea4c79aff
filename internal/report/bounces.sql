-- The bounce report in one statement (one round trip), read from the report
-- counter tables only, never from bounce_events. {{SCOPE}} is replaced by the
-- campaign predicate: "campaign_id = $2::bigint" for one campaign, or
-- "campaign_id <> 0 AND $2::bigint IS NULL" for every campaign of the
-- workspace (campaign 0, unmatched events, is left out).
--
-- $1 workspace, $2 campaign (NULL for all), [$3, $4) the report's days in
-- UTC (local midnight of the first day to local midnight after the last),
-- $5..$11 the pieces of the daily series (below).
--
-- The statement starts with the stamp row (stamp.sql, one snapshot with the
-- figures), then: UNION ALL and the rows below. Every row has the shape
-- (section, k1, k2, k3, n0 .. n9):
--   totals    n0..n9 sent, events, bounced, hard, soft, complaints,
--             auto_replies, delayed, delivered, leads_bounced
--   label     k1 label, k2 class, k3 code, n0 events
--   dim       k1 dimension, k2 value, k3 mailbox name, n0..n8 metrics
--   day       k1 YYYY-MM-DD, n0..n8 metrics (days without counters absent)
--   burst     (from burst_campaign.sql or burst_workspace.sql)
--             k1 end of the peak window's last period (RFC 3339, UTC),
--             n0 blocks, n1 bounced, n2 qualifying windows (a window ends
--             at each 15-minute period holding a bounce)
SELECT 'totals', '', '', '',
       COALESCE(SUM(sent), 0)::bigint, COALESCE(SUM(events), 0)::bigint, COALESCE(SUM(bounced), 0)::bigint,
       COALESCE(SUM(hard), 0)::bigint, COALESCE(SUM(soft), 0)::bigint, COALESCE(SUM(complaints), 0)::bigint,
       COALESCE(SUM(auto_replies), 0)::bigint, COALESCE(SUM(delayed), 0)::bigint,
       COALESCE(SUM(delivered), 0)::bigint, COALESCE(SUM(leads_bounced), 0)::bigint
FROM report_campaign_counters
WHERE workspace_id = $1 AND {{SCOPE}}
UNION ALL
SELECT 'label', label, class, code, SUM(events)::bigint, 0, 0, 0, 0, 0, 0, 0, 0, 0
FROM report_label_counters
WHERE workspace_id = $1 AND {{SCOPE}}
GROUP BY label, class, code
HAVING SUM(events) <> 0
UNION ALL
SELECT 'dim', d.dimension, d.value, COALESCE(m.name, ''), d.sent, d.events, d.bounced, d.hard, d.soft,
       d.complaints, d.auto_replies, d.delayed, d.delivered, 0
FROM (SELECT dimension, value, SUM(sent)::bigint AS sent, SUM(events)::bigint AS events,
             SUM(bounced)::bigint AS bounced, SUM(hard)::bigint AS hard, SUM(soft)::bigint AS soft,
             SUM(complaints)::bigint AS complaints, SUM(auto_replies)::bigint AS auto_replies,
             SUM(delayed)::bigint AS delayed, SUM(delivered)::bigint AS delivered
      FROM report_dimension_counters
      WHERE workspace_id = $1 AND {{SCOPE}}
      GROUP BY dimension, value) d
LEFT JOIN mailboxes m
       ON m.workspace_id = $1
      AND m.id = (CASE WHEN d.dimension = 'mailbox' AND d.value ~ '^[0-9]{1,18}$' THEN d.value::bigint END)
WHERE (d.sent, d.events, d.bounced, d.hard, d.soft, d.complaints, d.auto_replies, d.delayed, d.delivered)
      <> (0, 0, 0, 0, 0, 0, 0, 0, 0)
UNION ALL
-- Day D of the zone is [lo, hi) in UTC; alo and ahi are the UTC midnights
-- nearest to lo and hi. [lo, hi) = [lo, alo) + [alo, ahi) + [ahi, hi), a
-- piece counted negatively when it runs backwards: the UTC days [alo, ahi)
-- from report_day_counters ($5 days, $6 and $7 their UTC dates), the two
-- edge pieces from report_period_counters ($8 day, $9 sign, [$10, $11)).
-- The caller computes the pieces from the tz database.
SELECT 'day', x.day, '', '', SUM(x.sent)::bigint, SUM(x.events)::bigint,
       SUM(x.bounced)::bigint, SUM(x.hard)::bigint, SUM(x.soft)::bigint, SUM(x.complaints)::bigint,
       SUM(x.auto_replies)::bigint, SUM(x.delayed)::bigint, SUM(x.delivered)::bigint, 0
-- OFFSET 0 keeps each lateral subquery a parameterized index range scan.
FROM (SELECT s.day, dc.sent, dc.events, dc.bounced, dc.hard, dc.soft, dc.complaints, dc.auto_replies, dc.delayed,
             dc.delivered
      FROM unnest($5::text[], $6::text[]::date[], $7::text[]::date[]) AS s(day, ufrom, uto)
      CROSS JOIN LATERAL (SELECT * FROM report_day_counters d
                          WHERE d.workspace_id = $1 AND d.{{SCOPE}} AND d.day >= s.ufrom AND d.day < s.uto
                          OFFSET 0) dc
      UNION ALL
      SELECT e.day, e.sign * p.sent, e.sign * p.events, e.sign * p.bounced, e.sign * p.hard, e.sign * p.soft,
             e.sign * p.complaints, e.sign * p.auto_replies, e.sign * p.delayed, e.sign * p.delivered
      FROM unnest($8::text[], $9::int[], $10::timestamptz[], $11::timestamptz[]) AS e(day, sign, a, b)
      CROSS JOIN LATERAL (SELECT * FROM report_period_counters r
                          WHERE r.workspace_id = $1 AND r.{{SCOPE}} AND r.period_start >= e.a AND r.period_start < e.b
                          OFFSET 0) p) x
GROUP BY x.day
UNION ALL
{{BURST}}
